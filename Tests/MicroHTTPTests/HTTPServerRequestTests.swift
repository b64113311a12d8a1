import Foundation
import FoundationNetworking
import MicroHTTP
import Synchronization
import Testing

@Suite struct HTTPServerRequestTests {
    @Test("A GET reaches the handler with its path, query, headers and peer, and gets its response")
    func getRequest() async throws {
        let server = try makeServer { request, responder in
            let summary = [
                request.method, request.path, request.query["name"] ?? "-", request.query["flag"] ?? "-",
                request.headers["x-probe"] ?? "-", request.remoteAddress ?? "-", "\(request.body.count)",
            ].joined(separator: "|")
            var response = HTTPResponse.text(200, summary)
            response.headers.add(name: "X-Reply", value: "yes")
            responder.respond(response)
        }
        defer { server.stop() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/a/b%20c?name=J%C3%BCrg&flag")!)
        request.setValue("probe-1", forHTTPHeaderField: "X-Probe")

        let (data, response) = try await URLSession.shared.data(for: request)

        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "X-Reply") == "yes")
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: data, as: UTF8.self) == "GET|/a/b c|Jürg||probe-1|127.0.0.1|0")
    }

    @Test("A 1 MiB POST body arrives intact")
    func largePostBody() async throws {
        let server = try makeServer { request, responder in
            responder.respond(HTTPResponse(status: 201, body: request.body))
        }
        defer { server.stop() }
        var generator = SystemRandomNumberGenerator()
        let body = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/upload")!)
        request.httpMethod = "POST"
        request.httpBody = Data(body)

        let (data, response) = try await URLSession.shared.data(for: request)

        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(data.count == body.count)
        #expect(Array(data) == body)
    }

    @Test("A handler that answers from another thread 50 ms later is answered")
    func deferredResponse() async throws {
        let server = try makeServer { request, responder in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                responder.respond(.json(202, Array("{\"path\":\"\(request.path)\"}".utf8)))
            }
        }
        defer { server.stop() }

        let (data, response) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(server.port)/later")!)

        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 202)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: data, as: UTF8.self) == "{\"path\":\"/later\"}")
    }

    @Test("200 concurrent requests answered asynchronously each get their own response")
    func concurrentDeferredResponses() async throws {
        let total = 200
        let waiting = Mutex<[(id: String, responder: HTTPResponder)]>([])
        // Every client is 127.0.0.1, so the per-IP limit would close some of them. A connection that waits for
        // its request longer than the idle timeout is closed before its handler runs, and then no request is
        // ever answered: on a loaded machine connecting 200 clients can take that long, so the timeout is
        // lifted above the clients' own 60 s read limit.
        let server = try makeServer({
            $0.perIPConnectionLimit = 0
            $0.connectionTimeout = .seconds(120)
        }) { request, responder in
            let id = request.query["id"] ?? "missing"
            let all = waiting.withLock { waiting -> [(id: String, responder: HTTPResponder)]? in
                waiting.append((id, responder))
                return waiting.count == total ? waiting : nil
            }
            // Only once every request is parked are they answered, newest first, from another thread.
            guard let all else { return }
            DispatchQueue.global().async {
                for (id, responder) in all.reversed() {
                    responder.respond(.text(200, "reply-\(id)"))
                }
            }
        }
        defer { server.stop() }

        let replies = try await onThread { [port = server.port] in
            let clients = try (0..<total).map { index in
                let client = try RawHTTPClient(port: port)
                try client.request("GET", "/item?id=\(index)")
                return client
            }
            return try clients.map { try $0.readResponse() }
        }

        #expect(replies.map(\.status) == Array(repeating: 200, count: total))
        #expect(replies.map(\.text) == (0..<total).map { "reply-\($0)" })
        #expect(waiting.withLock { $0.count } == total)
    }

    @Test("Responses racing the handler's return are each delivered once, to the right request")
    func respondRacesHandlerReturn() async throws {
        // Answering from another thread at once lands sometimes before the handler returns, sometimes after
        // the connection was suspended: both paths must deliver.
        let server = try makeServer { request, responder in
            DispatchQueue.global().async { responder.respond(.text(200, request.query["n"] ?? "?")) }
        }
        defer { server.stop() }

        let replies = try await onThread { [port = server.port] in
            let clients = try (0..<10).map { _ in try RawHTTPClient(port: port) }
            var replies: [String] = []
            for round in 0..<50 {
                for (index, client) in clients.enumerated() {
                    try client.request("GET", "/race?n=\(round * 10 + index)")
                }
                replies += try clients.map { try $0.readResponse().text }
            }
            return replies
        }

        #expect(replies == (0..<500).map(String.init))
    }

    @Test("Several requests on one keep-alive connection are all answered on it")
    func keepAlive() async throws {
        let server = try makeServer { request, responder in
            responder.respond(.text(200, "\(request.method) \(request.path) \(request.body.count)"))
        }
        defer { server.stop() }

        let (replies, openConnections) = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            var replies: [RawHTTPClient.Response] = []
            try client.request("GET", "/one")
            replies.append(try client.readResponse())
            try client.request("POST", "/two", body: Array("abc".utf8))
            replies.append(try client.readResponse())
            try client.request("GET", "/three")
            replies.append(try client.readResponse())
            return (replies, server.activeConnections)
        }

        #expect(replies.map(\.text) == ["GET /one 0", "POST /two 3", "GET /three 0"])
        #expect(replies.allSatisfy { $0.headers["Connection"]?.lowercased() != "close" })
        #expect(openConnections == 1)
    }

    @Test("A server with a thread pool answers immediate and deferred requests")
    func threadPool() async throws {
        let server = try makeServer({ $0.threadPoolSize = 2 }) { request, responder in
            if request.path == "/now" {
                responder.respond(.text(200, "now"))
            } else {
                DispatchQueue.global().async { responder.respond(.text(200, "later")) }
            }
        }
        defer { server.stop() }

        let replies = try await onThread { [port = server.port] in
            let client = try RawHTTPClient(port: port)
            return try ["/now", "/later", "/now"].map { path in
                try client.request("GET", path)
                return try client.readResponse().text
            }
        }

        #expect(replies == ["now", "later", "now"])
    }
}
