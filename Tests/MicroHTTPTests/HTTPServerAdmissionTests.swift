import Foundation
import MicroHTTP
import Testing

/// The admission handler: a verdict on the head, possibly given later, before any body is read.
@Suite struct HTTPServerAdmissionTests {
    @Test("A refusal given later from another thread is answered while the announced body never comes")
    func laterRefusalBeforeBody() async throws {
        let calls = CallCounter()
        let server = try makeServer(
            admissionHandler: { _, _, _, admission in
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: 0.05)
                    admission.refuse(.text(401, "unknown key"))
                }
            },
            handler: { _, responder in
                calls.increment()
                responder.respond(.text(200, "handled"))
            })
        defer { server.stop() }

        let reply = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            // Only the head: an 8 MiB body is announced and never sent.
            try client.send("POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n")
            return try client.readResponse()
        }

        #expect(reply.status == 401)
        #expect(reply.text == "unknown key")
        #expect(calls.value == 0)
    }

    @Test("An admission given later lets the body through, and its note reaches the handler")
    func laterAdmissionReadsBody() async throws {
        let server = try makeServer(
            admissionHandler: { _, _, headers, admission in
                let key = headers["Authorization"] ?? ""
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: 0.05)
                    admission.admit(note: "app for \(key)")
                }
            },
            handler: { request, responder in
                responder.respond(.text(200, "\(request.admissionNote as? String ?? "none"):\(request.body.count)"))
            })
        defer { server.stop() }

        let replies = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            try client.request("POST", "/events", headers: ["Authorization": "k1"], body: Array(repeating: 1, count: 5000))
            let first = try client.readResponse()
            // Kept alive: the next request on the connection is admitted anew.
            try client.request("POST", "/events", headers: ["Authorization": "k2"], body: [1, 2])
            return (first, try client.readResponse())
        }

        #expect(replies.0.status == 200)
        #expect(replies.0.text == "app for k1:5000")
        #expect(replies.1.text == "app for k2:2")
    }

    @Test("A verdict given inside the admission handler is carried out without suspending")
    func immediateVerdicts() async throws {
        let server = try makeServer(
            admissionHandler: { _, path, _, admission in
                path == "/open" ? admission.admit() : admission.refuse(.text(403, "closed"))
            },
            handler: { request, responder in responder.respond(.text(200, "\(request.body.count)")) })
        defer { server.stop() }

        let (open, closed) = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            try client.request("POST", "/open", body: [1, 2, 3])
            let open = try client.readResponse()
            let other = try RawHTTPClient(port: port)
            try other.send("POST /closed HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            return (open, try other.readResponse())
        }

        #expect(open.text == "3")
        #expect(closed.status == 403)
    }
}
