import CardinalCore
import CardinalStore
import Foundation
import Gzip
import MicroHTTP

/// `POST /v1/events`: authenticates, inflates, decodes and validates a batch, submits it for group commit and
/// answers once every event is stored, a duplicate, or rejected.
struct EventsEndpoint: Sendable {
    let keys: IngestKeyCache
    /// The validation policy, whose retention follows the database's settings.
    let retention: RetentionSetting
    let batcher: Batcher
    let metrics: IngestMetrics
    let logger: Logger
    let maxInflatedBytes: Int
    let requestTimeout: Duration
    /// Whether a disk spool takes batches while the database is down (then known keys keep working).
    let spoolEnabled: Bool

    /// Handles one request; blocking work (a key lookup on a cache miss) is allowed: this runs on the
    /// processing queue, not on the HTTP thread.
    func handle(_ request: HTTPRequest, requestID: String, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let receivedAt = Date.now
        let appID: Int64
        switch authenticate(request) {
        case let .success(id):
            appID = id
        case let .failure(error):
            return respond(error.response)
        }
        let decoded: DecodedBatch
        switch decode(request, receivedAt: receivedAt) {
        case let .success(batch):
            decoded = batch
        case let .failure(error):
            return respond(error.response)
        }
        let rejections = decoded.rejections
        if decoded.events.isEmpty && rejections.isEmpty {
            return respond(IngestResponse.batchResult(accepted: 0, duplicates: 0, rejections: []))
        }
        let submission = Submission(
            events: decoded.events.map { EventRecord(appID: appID, event: $0.event, receivedAt: receivedAt) },
            rejections: rejections.map {
                RejectionRecord(appID: appID, requestID: requestID, receivedAt: receivedAt, rejection: $0)
            },
            requestID: requestID,
            eventIndices: decoded.events.map(\.index),
            deadline: .now + requestTimeout
        ) { [metrics, logger] outcome in
            switch outcome {
            case let .written(inserted, refused):
                let accepted = inserted.lazy.filter { $0 }.count
                for rejection in refused {
                    // The message names the SQLSTATE and constraint only, never the row.
                    logger.log(.warning, "database refused an event; stored as a rejection", [
                        "ingest.request_id": requestID, "ingest.event_index": String(rejection.index),
                        "ingest.code": rejection.code.rawValue, "db.error": rejection.message,
                    ])
                }
                let all = refused.isEmpty ? rejections : (rejections + refused).sorted { $0.index < $1.index }
                metrics.recordEvents(
                    accepted: accepted, duplicates: inserted.count - accepted,
                    rejectionCodes: all.map(\.code.rawValue)
                )
                respond(IngestResponse.batchResult(
                    accepted: accepted, duplicates: inserted.count - accepted, rejections: all
                ))
            case let .notWritten(failure):
                switch failure {
                case let .refusedByDatabase(refusal):
                    logger.log(.error, "database refused a batch", ["ingest.request_id": requestID, "db.error": refusal.message])
                case let .databaseFailed(reason):
                    logger.log(.error, "database failed a batch", ["ingest.request_id": requestID, "db.error": reason])
                default:
                    break
                }
                respond(IngestResponse.failure(failure))
            }
        }
        batcher.submit(submission)
    }

    private func authenticate(_ request: HTTPRequest) -> Result<Int64, ResponseError> {
        guard let token = BearerToken(authorization: request.headers["Authorization"]) else {
            return .failure(.init(Self.unauthorized))
        }
        let resolution: IngestKeyCache.Resolution
        if let cached = keys.cached(token.value) {
            resolution = cached
        } else {
            do {
                resolution = try keys.resolve(token.value, timeout: Self.keyLookupTimeout)
            } catch {
                logger.log(.warning, "cannot look up an ingest key", ["db.error": String(describing: error)])
                // With a spool, an outage must not lock out the apps the daemon already knows.
                guard spoolEnabled, case let .app(appID)? = keys.lastKnown(token.value) else {
                    return .failure(.init(IngestResponse.failure(.databaseUnavailable)))
                }
                resolution = .app(appID)
            }
        }
        guard case let .app(appID) = resolution else {
            return .failure(.init(Self.unauthorized))
        }
        return .success(appID)
    }

    private func decode(_ request: HTTPRequest, receivedAt: Date) -> Result<DecodedBatch, ResponseError> {
        guard let format = RequestHeadCheck.batchFormat(contentType: request.headers["Content-Type"]) else {
            return .failure(.init(IngestResponse.error(415, code: "unsupported_media_type",
                                                       message: "Content-Type must be application/json or application/x-ndjson")))
        }
        var body = request.body
        if ContentEncoding(header: request.headers["Content-Encoding"]) == .gzip {
            do {
                body = try Gzip.inflate(body, maxOutputBytes: maxInflatedBytes)
            } catch .outputTooLarge(let limit) {
                return .failure(.init(IngestResponse.error(
                    413, code: "payload_too_large", message: "the body inflates to more than \(limit) bytes"
                )))
            } catch {
                return .failure(.init(IngestResponse.error(400, code: "invalid_gzip", message: "the gzip body is corrupt")))
            }
        }
        do {
            let decoder = BatchDecoder(policy: retention.policy)
            return .success(try decoder.decode(body, format: format, receivedAt: receivedAt))
        } catch {
            return .failure(.init(IngestResponse.error(400, code: "not_a_batch", message: String(describing: error))))
        }
    }

    /// How long a request waits for its key to be looked up: a database answers in milliseconds, so this is only
    /// reached when it cannot answer (a silent network holds a lookup until libpq's `tcp_user_timeout`); then a
    /// key the daemon knows goes on to the spool, as in an outage.
    static let keyLookupTimeout: Duration = .seconds(2)

    private static let unauthorized = IngestResponse.error(
        401, code: "unauthorized", message: "the ingest key is unknown or revoked"
    )
}

/// A response carried as an error through `Result`, for the early exits of request handling.
struct ResponseError: Error {
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
    }
}
