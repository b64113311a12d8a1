import Foundation
import MicroHTTP
import Testing

/// The absolute request deadline and the per-IP connection limit: what keeps slow or many clients from
/// holding every connection slot.
@Suite struct HTTPServerDeadlineTests {
    @Test("A request whose handler never answers gets the deadline response at its deadline")
    func suspendedRequestExpires() async throws {
        let deferred = DeferredRequests()
        let server = try makeServer({
            $0.requestDeadline = .seconds(1)
            $0.deadlineResponse = .text(503, "too slow")
        }, handler: deferred.handler)
        defer { server.stop() }

        let (reply, waited) = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            let start = Date()
            try client.request("GET", "/never")
            return (try client.readResponse(), Date().timeIntervalSince(start))
        }

        #expect(reply.status == 503)
        #expect(reply.text == "too slow")
        // Generous order-of-magnitude bounds: not before the deadline, long before the 30 s idle timeout.
        #expect(waited >= 0.9)
        #expect(waited < 10)
    }

    @Test("A request whose admission never comes gets the deadline response")
    func pendingAdmissionExpires() async throws {
        let server = try makeServer({
            $0.requestDeadline = .seconds(1)
            $0.deadlineResponse = .text(503, "too slow")
        }, admissionHandler: { _, _, _, _ in }, handler: { _, responder in responder.respond(.text(200, "")) })
        defer { server.stop() }

        let reply = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
            return try client.readResponse()
        }

        #expect(reply.status == 503)
    }

    @Test("A body trickled more slowly than the deadline allows is cut off, though every byte beats the idle timeout")
    func trickledBodyIsCutOff() async throws {
        let calls = CallCounter()
        let server = try makeServer({
            $0.requestDeadline = .seconds(2)
            $0.connectionTimeout = .seconds(30)
        }, handler: { _, responder in
            calls.increment()
            responder.respond(.text(200, ""))
        })
        defer { server.stop() }

        let (closed, waited) = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            let start = Date()
            try client.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
            // One byte every 0.5 s would take 50 s; the deadline is 2 s.
            for _ in 0..<20 {
                Thread.sleep(forTimeInterval: 0.5)
                guard (try? client.send("x")) != nil else { break }
            }
            return (client.readsEndOfStream(), Date().timeIntervalSince(start))
        }

        #expect(closed)
        #expect(waited < 10)
        #expect(calls.value == 0)
    }

    @Test("Connections from one address beyond the per-IP limit are closed, while another address is served")
    func perIPLimit() async throws {
        let server = try makeServer({ $0.perIPConnectionLimit = 2 }) { _, responder in
            responder.respond(.text(200, "ok"))
        }
        defer { server.stop() }

        let (thirdClosed, otherStatus, firstStatus) = try await onThread { [port = server.port] in
            let first = try RawHTTPClient(port: port)
            let second = try RawHTTPClient(port: port)
            try first.request("GET", "/a")
            _ = try first.readResponse()
            try second.request("GET", "/a")
            _ = try second.readResponse()
            let third = try RawHTTPClient(port: port)
            try? third.request("GET", "/a")
            let thirdClosed = third.readsEndOfStream()
            let other = try RawHTTPClient(port: port, sourceAddress: "127.0.0.2")
            try other.request("GET", "/a")
            let otherStatus = try other.readResponse().status
            try first.request("GET", "/a")
            return (thirdClosed, otherStatus, try first.readResponse().status)
        }

        #expect(thirdClosed)
        #expect(otherStatus == 200)
        #expect(firstStatus == 200)
    }
}
