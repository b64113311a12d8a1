import CardinalCore
import CardinalLogging
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
    /// The connection `/readyz` checks the database with: not the key-lookup pool, so a flood of unknown keys
    /// cannot make the daemon look unready, nor a stream of probes slow key lookups.
    private let readinessPool: PostgresPool
    /// `/readyz` blocks on the database: on a thread of its own, never on the Dispatch pool.
    private let readinessWorker = BlockingWorkers(threads: 1, name: "cardinal-readiness")
    private let keys: IngestKeyCache
    private let rateLimiter: RateLimiter
    private let memory: MemoryBudget
    /// What a request without `Content-Length` (chunked) reserves: the most it may send.
    private let maxBodyBytes: Int
    /// Whether a disk spool takes batches while the database is down (then known keys keep working).
    private let spoolEnabled: Bool
    private let spool: SpoolWriter?
    private let metrics: IngestMetrics
    private let logger: Logger
    /// Decoding and validation are CPU work: they run here, so the HTTP thread only moves bytes. Nothing that
    /// blocks runs here.
    private let processing = DispatchQueue(label: "cardinal.ingest.processing", attributes: .concurrent)
    /// Requests taken and not yet answered; shutdown waits on its condition until it is 0.
    private let inFlight = ConditionProtected(0)
    private let requestCounter = Atomic<UInt64>(0)
    private let draining = Atomic(false)
    private let requestIDPrefix = String(UInt32.random(in: .min ... .max), radix: 36)

    init(events: EventsEndpoint, headCheck: RequestHeadCheck, keys: IngestKeyCache, rateLimiter: RateLimiter,
         memory: MemoryBudget, readinessPool: PostgresPool, spool: SpoolWriter?, metrics: IngestMetrics,
         logger: Logger) {
        self.memory = memory
        self.maxBodyBytes = headCheck.maxBodyBytes
        self.events = events
        self.headCheck = headCheck
        self.keys = keys
        self.rateLimiter = rateLimiter
        self.readinessPool = readinessPool
        self.spoolEnabled = spool != nil
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
        return finished(response, requestID: nextRequestID(), path: path, remoteAddress: nil, appID: nil)
    }

    /// The `HTTPAdmissionHandler` of the server: resolves the key of a `POST /v1/events` (from the cache, else on
    /// a lookup thread), checks the app's request rate and reserves the body's memory before a byte of the body
    /// is read, so that an unknown key or a throttled app costs the daemon no body memory. Other requests are
    /// admitted at once.
    func admit(method: String, path: String, headers: HTTPHeaders, admission: HTTPAdmission) {
        guard Route(path: path) == .events, let token = BearerToken(authorization: headers["Authorization"]) else {
            return admission.admit()
        }
        let refuse: @Sendable (HTTPResponse, IngestKeyLookup?) -> Void = { [self] response, app in
            admission.refuse(finished(response, requestID: nextRequestID(), path: path, remoteAddress: nil,
                                      appID: app?.appID))
        }
        keys.resolve(token.value, timeout: Self.keyLookupTimeout) { [self] result in
            let app: IngestKeyLookup
            switch result {
            case .success(.app(let found)):
                app = found
            case .success(.unknown):
                return refuse(Self.unknownKey, nil)
            case .failure(let error):
                logger.log(.warning, "cannot look up an ingest key", ["db.error": String(describing: error)],
                           summarizedBy: ["db.error"])
                // With a spool, an outage must not lock out the apps the daemon already knows.
                guard spoolEnabled, let known = keys.lastKnown(token.value) else {
                    return refuse(IngestResponse.failure(.databaseUnavailable), nil)
                }
                app = known
            }
            if let refusal = rateLimiter.admitRequest(of: app) {
                metrics.recordRateLimited(bucket: refusal.bucket.rawValue)
                return refuse(IngestResponse.rateLimited(refusal), app)
            }
            let declared = headers["Content-Length"].flatMap { Int($0) } ?? maxBodyBytes
            guard let reservation = memory.reserve(declared, for: app.appID) else {
                return refuse(IngestResponse.failure(.outOfMemoryBudget), app)
            }
            admission.admit(note: AdmittedRequest(app: app, bodyReservation: reservation))
        }
    }

    /// How long a request waits for its key to be looked up: a database answers in milliseconds, so this is only
    /// reached when it cannot answer (a silent network holds a lookup until libpq's `tcp_user_timeout`); then a
    /// key the daemon knows goes on to the spool, as in an outage.
    static let keyLookupTimeout: Duration = .seconds(2)

    private static let unknownKey = IngestResponse.error(
        401, code: "unauthorized", message: "the ingest key is unknown or revoked"
    )

    /// The `HTTPHandler` of the server.
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        inFlight.withLock { $0 += 1 }
        let requestID = nextRequestID()
        let respond: @Sendable (HTTPResponse) -> Void = { [self] response in
            responder.respond(finished(response, requestID: requestID, path: request.path,
                                       remoteAddress: request.remoteAddress,
                                       appID: (request.admissionNote as? AdmittedRequest)?.app.appID))
            let idle = inFlight.withLock { count in
                count -= 1
                return count == 0
            }
            if idle {
                inFlight.signalAll()
            }
        }
        switch Route(path: request.path) {
        case .events where draining.load(ordering: .acquiring):
            respond(IngestResponse.failure(.shuttingDown))
        case .events:
            processing.async { [events] in events.handle(request, requestID: requestID, respond: respond) }
        case .health:
            respond(.json(200, Array(#"{"status":"ok"}"#.utf8)))
        case .readiness:
            readinessWorker.submit { [self] in respond(readiness()) }
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
    /// refuses the request, logged: the first refusal of an app (or, before the app is known, of a remote
    /// address) for a status in full, the rest as one count a minute, because a client over its rate limit can
    /// be refused thousands of times a second. The counters in `/metrics` stay exact.
    private func finished(
        _ response: HTTPResponse, requestID: String, path: String, remoteAddress: String?, appID: Int64?
    ) -> HTTPResponse {
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
                "ingest.app": appID.map(String.init) ?? "-", "http.remote": remoteAddress ?? "-",
            ], summarizedBy: ["http.status", "http.path", "ingest.app", "http.remote"])
        }
        return response
    }

    /// From now on, refuses new batches with 503 and closes every connection after its response, so that
    /// keep-alive clients cannot keep a shutting-down daemon busy; requests already taken on finish normally.
    func beginDraining() {
        draining.store(true, ordering: .releasing)
    }

    /// Lets the router's own threads end.
    func stop() {
        readinessWorker.stop()
        keys.stop()
    }

    /// Waits until every request in flight has been answered, or `timeout` passes: woken by the last answer,
    /// not by polling.
    func waitUntilIdle(timeout: Duration) {
        let giveUp = Date.now.addingTimeInterval(Double(timeout.components.seconds)
                                                 + Double(timeout.components.attoseconds) / 1e18)
        var idle = false
        while !idle, Date.now < giveUp {
            inFlight.withLockThenWait { count in
                idle = count == 0
                return idle ? .proceed : .until(giveUp)
            }
        }
    }

    /// `ready` when the database is reachable and nothing is spooled; `degraded` (still 200: events are
    /// accepted) while the spool holds data or takes the batches the database cannot; 503 when neither can.
    private func readiness() -> HTTPResponse {
        let databaseUp: Bool
        do {
            // Reading the settings row proves more than a `select 1`: the database is reachable and migrated.
            _ = try readinessPool.withConnection { try InstallationSettings.load(from: $0) }
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
