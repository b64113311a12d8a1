import CardinalCore
import CardinalStore
import Dispatch
import Foundation
import MicroHTTP
import PostgresClient
import Synchronization

/// Sends each request to its endpoint, off the HTTP thread, and keeps count of the requests in flight so that
/// shutdown can wait for their answers.
final class IngestRouter: Sendable {
    private let events: EventsEndpoint
    private let headCheck: RequestHeadCheck
    private let pool: PostgresPool
    private let spool: SpoolWriter?
    private let metrics: IngestMetrics
    private let logger: Logger
    /// Decoding and validation are CPU work and a key lookup may block: they run here, so the HTTP thread only
    /// moves bytes.
    private let processing = DispatchQueue(label: "cardinal.ingest.processing", attributes: .concurrent)
    private let inFlight = Mutex(0)
    private let requestCounter = Atomic<UInt64>(0)
    private let draining = Atomic(false)
    private let requestIDPrefix = String(UInt32.random(in: .min ... .max), radix: 36)

    init(events: EventsEndpoint, headCheck: RequestHeadCheck, pool: PostgresPool, spool: SpoolWriter?,
         metrics: IngestMetrics, logger: Logger) {
        self.events = events
        self.headCheck = headCheck
        self.pool = pool
        self.spool = spool
        self.metrics = metrics
        self.logger = logger
    }

    /// The `HTTPHeadHandler` of the server: answers at once what the head alone decides (404, 405, 401, 415,
    /// 413), with a request id, counted and logged like every other answer.
    func checkHead(method: String, path: String, headers: HTTPHeaders) -> HTTPResponse? {
        guard let response = headCheck.response(method: method, path: path, headers: headers) else {
            return nil
        }
        return finished(response, requestID: nextRequestID(), path: path, remoteAddress: nil)
    }

    /// The `HTTPHandler` of the server.
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        inFlight.withLock { $0 += 1 }
        let requestID = nextRequestID()
        let respond: @Sendable (HTTPResponse) -> Void = { [self] response in
            responder.respond(finished(response, requestID: requestID, path: request.path,
                                       remoteAddress: request.remoteAddress))
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

    private func nextRequestID() -> String {
        "\(requestIDPrefix)-\(requestCounter.add(1, ordering: .relaxed).newValue)"
    }

    /// The response as sent: with its request id, `Connection: close` while draining, counted and, when it
    /// refuses the request, logged.
    private func finished(_ response: HTTPResponse, requestID: String, path: String, remoteAddress: String?) -> HTTPResponse {
        var response = response
        response.headers.add(name: "X-Request-Id", value: requestID)
        if draining.load(ordering: .acquiring) {
            // libmicrohttpd closes the connection after this response, so a keep-alive client comes back on a
            // new connection, which the quiesced server refuses.
            response.headers.replaceOrAdd(name: "Connection", value: "close")
        }
        if path == "/v1/events" {
            metrics.recordRequest(status: response.status)
        }
        // A failing readiness probe repeats every few seconds during an outage, which is logged once already.
        if response.status >= 400, path != "/readyz" {
            logger.log(response.status >= 500 ? .warning : .info, "request refused", [
                "ingest.request_id": requestID, "http.status": String(response.status), "http.path": path,
                "http.remote": remoteAddress ?? "-",
            ])
        }
        return response
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

    /// `ready` when the database is reachable and nothing is spooled; `degraded` (still 200: events are
    /// accepted) while the spool holds data or takes the batches the database cannot; 503 when neither can.
    private func readiness() -> HTTPResponse {
        let databaseUp: Bool
        do {
            // Reading the settings row proves more than a `select 1`: the database is reachable and migrated.
            _ = try pool.withConnection { try InstallationSettings.load(from: $0) }
            databaseUp = true
        } catch {
            databaseUp = false
        }
        guard let spool = spool?.snapshot else {
            return databaseUp
                ? .json(200, Array(#"{"status":"ready"}"#.utf8))
                : IngestResponse.error(503, code: "database_unavailable",
                                       message: "the database cannot be reached", retryAfterSeconds: 5)
        }
        if databaseUp, spool.isEmpty {
            return .json(200, Array(#"{"status":"ready"}"#.utf8))
        }
        if !databaseUp, spool.isFull {
            return IngestResponse.error(503, code: "database_unavailable",
                                        message: "the database cannot be reached and the spool is full", retryAfterSeconds: 5)
        }
        let age = spool.oldestSpooledAt.map { max(0, Date.now.timeIntervalSince($0)) } ?? 0
        let body = JSONValue.object(JSONObject([
            "status": .string("degraded"),
            "database": .string(databaseUp ? "reachable" : "unreachable"),
            "reason": .string(databaseUp ? "replaying spooled events into the database"
                                         : "the database cannot be reached; accepted events are spooled to disk"),
            "spool": .object(JSONObject([
                "records": .number(String(spool.records)), "events": .number(String(spool.events)),
                "bytes": .number(String(spool.bytes)), "oldest_record_age_seconds": .number(String(Int(age))),
            ])),
        ]))
        return .json(200, Array(body.compactText.utf8))
    }
}
