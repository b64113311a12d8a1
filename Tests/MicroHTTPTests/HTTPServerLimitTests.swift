import MicroHTTP
import Testing

@Suite struct HTTPServerLimitTests {
    @Test("A Content-Length above maxBodyBytes is answered 413 before the body is read")
    func declaredBodyTooLarge() async throws {
        let calls = CallCounter()
        let server = try makeServer({ $0.maxBodyBytes = 1024 }) { _, responder in
            calls.increment()
            responder.respond(.text(200, "handled"))
        }
        defer { server.stop() }

        let reply = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            // Only the head is sent: the answer must not wait for the 2 KiB that never come.
            try client.send("POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n")
            return try client.readResponse()
        }

        #expect(reply.status == 413)
        #expect(calls.value == 0)
    }

    @Test("A chunked body that grows past maxBodyBytes gets bodyTooLargeResponse without calling the handler")
    func chunkedBodyTooLarge() async throws {
        let calls = CallCounter()
        let configure: (inout HTTPServerConfiguration) -> Void = {
            $0.maxBodyBytes = 1024
            $0.bodyTooLargeResponse = .text(413, "send less")
        }
        let server = try makeServer(configure) { _, responder in
            calls.increment()
            responder.respond(.text(200, "handled"))
        }
        defer { server.stop() }

        let replies = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            let chunk = "200\r\n" + String(repeating: "x", count: 512) + "\r\n"
            try client.send("POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send(String(repeating: chunk, count: 3) + "0\r\n\r\n")
            let tooLarge = try client.readResponse()
            // The connection stays usable: the oversized body was read to its end.
            try client.send("POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send(String(repeating: chunk, count: 2) + "0\r\n\r\n")
            return (tooLarge, try client.readResponse())
        }

        #expect(replies.0.status == 413)
        #expect(replies.0.text == "send less")
        #expect(replies.1.status == 200)
        #expect(calls.value == 1)
    }

    @Test("A body of exactly maxBodyBytes is accepted")
    func bodyAtLimit() async throws {
        let server = try makeServer({ $0.maxBodyBytes = 1024 }) { request, responder in
            responder.respond(.text(200, "\(request.body.count)"))
        }
        defer { server.stop() }

        let reply = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            try client.request("POST", "/events", body: Array(repeating: 7, count: 1024))
            return try client.readResponse()
        }

        #expect(reply.status == 200)
        #expect(reply.text == "1024")
    }

    @Test("The head handler answers 401 before a 1 MiB body is read, and lets authorized requests through")
    func headHandlerRejectsEarly() async throws {
        let calls = CallCounter()
        let server = try makeServer(
            headHandler: { method, path, headers in
                guard method == "POST", path == "/events" else { return .text(404, "no such route") }
                return headers["authorization"] == nil ? .text(401, "missing key") : nil
            },
            handler: { request, responder in
                calls.increment()
                responder.respond(.text(200, "\(request.body.count)"))
            })
        defer { server.stop() }

        let (unauthorized, authorized) = try await onThread { [port = server.port] in
            let rejected = try RawHTTPClient(port: port)
            try rejected.send("POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
            let unauthorized = try rejected.readResponse()
            let accepted = try RawHTTPClient(port: port)
            try accepted.request("POST", "/events", headers: ["Authorization": "Bearer k"], body: [1, 2, 3])
            return (unauthorized, try accepted.readResponse())
        }

        #expect(unauthorized.status == 401)
        #expect(unauthorized.text == "missing key")
        #expect(authorized.status == 200)
        #expect(authorized.text == "3")
        #expect(calls.value == 1)
    }
}
