import Dispatch
import Foundation
import MicroHTTP
import PostgresClient
import Synchronization

/// Sends each request to its endpoint, off the HTTP thread, and keeps count of the requests in flight so that
/// shutdown can wait for their answers.
final class IngestRouter: Sendable {
    private let events: EventsEndpoint
    private let pool: PostgresPool
    private let metrics: IngestMetrics
    private let logger: Logger
    /// Decoding and validation are CPU work and a key lookup may block: they run here, so the HTTP thread only
    /// moves bytes.
    private let processing = DispatchQueue(label: "cardinal.ingest.processing", attributes: .concurrent)
    private let inFlight = Mutex(0)
    private let requestCounter = Atomic<UInt64>(0)
    private let draining = Atomic(false)
    private let requestIDPrefix = String(UInt32.random(in: .min ... .max), radix: 36)

    init(events: EventsEndpoint, pool: PostgresPool, metrics: IngestMetrics, logger: Logger) {
        self.events = events
        self.pool = pool
        self.metrics = metrics
        self.logger = logger
    }

    /// The `HTTPHandler` of the server.
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        inFlight.withLock { $0 += 1 }
        let requestID = "\(requestIDPrefix)-\(requestCounter.add(1, ordering: .relaxed).newValue)"
        let respond: @Sendable (HTTPResponse) -> Void = { [self] response in
            var response = response
            response.headers.add(name: "X-Request-Id", value: requestID)
            if draining.load(ordering: .acquiring) {
                // libmicrohttpd closes the connection after this response, so a keep-alive client comes back
                // on a new connection, which the quiesced server refuses.
                response.headers.replaceOrAdd(name: "Connection", value: "close")
            }
            if request.path == "/v1/events" {
                metrics.recordRequest(status: response.status)
                if response.status >= 400 {
                    logger.log(response.status >= 500 ? .warning : .info, "request refused", [
                        "ingest.request_id": requestID, "http.status": String(response.status),
                        "http.remote": request.remoteAddress ?? "-",
                    ])
                }
            }
            responder.respond(response)
            inFlight.withLock { $0 -= 1 }
        }
        switch Route(path: request.path) {
        case .events where draining.load(ordering: .acquiring):
            respond(IngestResponse.failure(.shuttingDown))
        case .events:
            processing.async { [events] in events.handle(request, requestID: requestID, respond: respond) }
        case .health:
            respond(.json(200, Array(#"{"status":"ok"}"#.utf8)))
        case .readiness:
            processing.async { [self] in respond(readiness()) }
        case .metrics:
            respond(.text(200, metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
        case nil:
            respond(IngestResponse.error(404, code: "not_found", message: "no such endpoint: \(request.path)"))
        }
    }

    /// From now on, refuses new batches with 503 and closes every connection after its response, so that
    /// keep-alive clients cannot keep a shutting-down daemon busy; requests already taken on finish normally.
    func beginDraining() {
        draining.store(true, ordering: .releasing)
    }

    /// Waits until every request in flight has been answered, or `timeout` passes.
    func waitUntilIdle(timeout: Duration) {
        let giveUp = ContinuousClock.now + timeout
        while inFlight.withLock({ $0 }) > 0, ContinuousClock.now < giveUp {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private func readiness() -> HTTPResponse {
        do {
            _ = try pool.withConnection { try $0.query("select 1") }
            return .json(200, Array(#"{"status":"ready"}"#.utf8))
        } catch {
            return IngestResponse.error(503, code: "database_unavailable",
                                        message: "the database cannot be reached", retryAfterSeconds: 5)
        }
    }
}
