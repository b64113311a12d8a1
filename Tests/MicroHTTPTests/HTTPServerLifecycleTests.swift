import Glibc
import MicroHTTP
import Testing

@Suite struct HTTPServerLifecycleTests {
    @Test("After quiesce new connections are refused while a suspended request still completes")
    func quiesceDrains() async throws {
        let deferred = DeferredRequests()
        let server = try makeServer(handler: deferred.handler)
        defer { server.stop() }
        var pending = deferred.stream.makeAsyncIterator()
        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/slow")
        let inFlight = Task { try await onThread { try client.readResponse() } }
        let (_, responder) = try #require(await pending.next())

        server.quiesce()
        let refused = RawHTTPClient.connectErrno(port: server.port)
        responder.respond(.text(200, "finished after quiesce"))
        let reply = try await inFlight.value

        #expect(refused == ECONNREFUSED)
        #expect(reply.status == 200)
        #expect(reply.text == "finished after quiesce")
    }

    @Test("Binding an occupied port throws an error naming the address and errno")
    func occupiedPort() throws {
        let first = try makeServer { _, responder in responder.respond(.text(200, "")) }
        defer { first.stop() }

        let error = #expect(throws: HTTPServerError.self) {
            _ = try makeServer({ $0.port = first.port }) { _, responder in responder.respond(.text(200, "")) }
        }

        guard case .socketFailed(let operation, let host, let port, let code, _)? = error else {
            Issue.record("expected socketFailed, got \(String(describing: error))")
            return
        }
        #expect(operation == "bind")
        #expect(host == "127.0.0.1")
        #expect(port == first.port)
        #expect(code == EADDRINUSE)
        #expect(error?.description.contains("127.0.0.1:\(first.port)") == true)
    }

    @Test("A host that is not a numeric address is rejected")
    func invalidHost() {
        #expect(throws: HTTPServerError.invalidHost("example.invalid")) {
            _ = try makeServer({ $0.host = "example.invalid" }) { _, responder in responder.respond(.text(200, "")) }
        }
    }

    @Test("stop is idempotent and closes the listening socket")
    func stopTwice() throws {
        let server = try makeServer { _, responder in responder.respond(.text(200, "")) }
        let port = server.port

        server.stop()
        server.stop()

        #expect(RawHTTPClient.connectErrno(port: port) == ECONNREFUSED)
        #expect(server.activeConnections == 0)
    }

    @Test("Stopping with a suspended request closes it, and a later respond is a harmless no-op")
    func respondAfterStop() async throws {
        let deferred = DeferredRequests()
        let server = try makeServer(handler: deferred.handler)
        var pending = deferred.stream.makeAsyncIterator()
        let client = try RawHTTPClient(port: server.port)
        try client.request("GET", "/never")
        let (_, responder) = try #require(await pending.next())

        server.stop()
        responder.respond(.text(200, "too late"))
        responder.respond(.text(200, "twice too late"))
        let closed = try await onThread { client.readsEndOfStream() }

        #expect(closed)
    }

    @Test("Responses racing stop neither crash nor hang; each client gets its response or a closed connection")
    func respondRacesStop() async throws {
        let deferred = DeferredRequests()
        let server = try makeServer(handler: deferred.handler)
        var pending = deferred.stream.makeAsyncIterator()
        let clients = try (0..<50).map { _ in try RawHTTPClient(port: server.port) }
        for client in clients { try client.request("GET", "/pending") }
        var responders: [HTTPResponder] = []
        for _ in clients { responders.append(try #require(await pending.next()).1) }

        let answering = Task { try await onThread { [responders] in
            for responder in responders { responder.respond(.text(200, "answered")) }
        } }
        server.stop()
        try await answering.value
        let outcomes = try await onThread {
            clients.map { client -> String in (try? client.readResponse().text) ?? "closed" }
        }

        #expect(outcomes.count == 50)
        #expect(outcomes.allSatisfy { $0 == "answered" || $0 == "closed" })
        #expect(server.activeConnections == 0)
    }

    @Test("A respond after the client hung up is harmless and the server keeps serving")
    func respondAfterClientLeft() async throws {
        let deferred = DeferredRequests()
        let server = try makeServer(handler: deferred.handler)
        defer { server.stop() }
        var pending = deferred.stream.makeAsyncIterator()
        let leaving = try RawHTTPClient(port: server.port)
        try leaving.request("GET", "/abandoned")
        let (_, abandoned) = try #require(await pending.next())

        leaving.close()
        abandoned.respond(.text(200, "nobody listens"))
        let staying = try RawHTTPClient(port: server.port)
        try staying.request("GET", "/next")
        let reply = Task { try await onThread { try staying.readResponse() } }
        let (request, responder) = try #require(await pending.next())
        responder.respond(.text(200, "served \(request.path)"))

        #expect(try await reply.value.text == "served /next")
    }

    @Test("A response given before the handler returns is sent and later ones are ignored")
    func respondTwiceInHandler() async throws {
        let server = try makeServer { _, responder in
            responder.respond(.text(200, "first"))
            responder.respond(.text(500, "second"))
        }
        defer { server.stop() }

        let replies = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            try client.request("GET", "/a")
            let first = try client.readResponse()
            try client.request("GET", "/b")
            return [first, try client.readResponse()]
        }

        #expect(replies.map(\.status) == [200, 200])
        #expect(replies.map(\.text) == ["first", "first"])
    }
}
