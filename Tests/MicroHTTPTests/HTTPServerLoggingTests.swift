import MicroHTTP
import Synchronization
import Testing

@Suite struct HTTPServerLoggingTests {
    @Test("libmicrohttpd's messages reach the configured logger with their arguments formatted")
    func loggerReceivesMessages() async throws {
        let messages = Mutex<[String]>([])
        let server = try makeServer({ configuration in
            configuration.connectionMemoryLimit = 4096
            configuration.logger = { message in messages.withLock { $0.append(message) } }
        }) { _, responder in
            responder.respond(.text(200, "ok"))
        }
        defer { server.stop() }

        let reply = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            // A head larger than the connection's memory pool: libmicrohttpd answers by itself and logs the
            // status it sent.
            try client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 8000))\r\n\r\n")
            return try client.readResponse()
        }

        let logged = messages.withLock { $0 }
        #expect(reply.status == 431)
        #expect(logged.contains { $0.contains("431") })
        #expect(logged.allSatisfy { !$0.isEmpty && !$0.contains("%") && !$0.hasSuffix("\n") })
    }
}
