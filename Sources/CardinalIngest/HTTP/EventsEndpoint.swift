import CardinalCore
import CardinalLogging
import CardinalStore
import Foundation
import Gzip
import MicroHTTP

/// `POST /v1/events`: inflates, decodes and validates the batch of an admitted request (its key was resolved and
/// its request rate checked from the head, by `IngestRouter.admit`), checks its event rate, submits it for group
/// commit and answers once every event is stored, a duplicate, or rejected.
struct EventsEndpoint: Sendable {
    let rateLimiter: RateLimiter
    let rejectionQuota: RejectionQuota
    let memory: MemoryBudget
    /// Events one request may carry (413 beyond).
    let maxEvents: Int
    /// Rejected events of one request that are stored.
    let maxStoredRejections: Int
    /// The validation policy, whose retention follows the database's settings.
    let retention: RetentionSetting
    let batcher: Batcher
    let metrics: IngestMetrics
    let logger: Logger
    let maxInflatedBytes: Int
    let requestTimeout: Duration

    /// Handles one request, on the processing queue (CPU work only; nothing here blocks).
    func handle(_ request: HTTPRequest, requestID: String, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let receivedAt = Date.now
        guard let admitted = request.admissionNote as? AdmittedRequest else {
            preconditionFailure("a POST /v1/events reached its handler without an admitted key")
        }
        let app = admitted.app
        let appID = app.appID
        let decoded: DecodedBatch
        switch decode(request, admitted: admitted, receivedAt: receivedAt) {
        case let .success(batch):
            decoded = batch
        case let .failure(error):
            return respond(error.response)
        }
        if let refusal = rateLimiter.admitEvents(decoded.count, of: app) {
            metrics.recordRateLimited(bucket: refusal.bucket.rawValue)
            return respond(IngestResponse.rateLimited(refusal))
        }
        let rejections = decoded.rejections
        if decoded.events.isEmpty && rejections.isEmpty {
            return respond(IngestResponse.batchResult(accepted: 0, duplicates: 0, rejections: []))
        }
        let storedRejections = storable(rejections, appID: appID, receivedAt: receivedAt)
        let submission = Submission(
            events: decoded.events.map { EventRecord(appID: appID, event: $0.event, receivedAt: receivedAt) },
            rejections: storedRejections.map {
                RejectionRecord(appID: appID, requestID: requestID, receivedAt: receivedAt, rejection: $0)
            },
            requestID: requestID,
            eventIndices: decoded.events.map(\.index),
            deadline: .now + requestTimeout
        ) { [metrics, logger = logger.with(["ingest.request_id": requestID, "ingest.app": String(appID)])] outcome in
            switch outcome {
            case let .written(inserted, refused):
                let accepted = inserted.lazy.filter { $0 }.count
                for rejection in refused {
                    // The message names the SQLSTATE and constraint only, never the row. A client resending
                    // the same bad events would repeat it for every event: summarised per app and reason.
                    logger.log(.warning, "database refused an event; stored as a rejection", [
                        "ingest.event_index": String(rejection.index), "ingest.code": rejection.code.rawValue,
                        "db.error": rejection.message,
                    ], summarizedBy: ["ingest.app", "ingest.code", "db.error"])
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
                    logger.log(.error, "database refused a batch", ["db.error": refusal.message])
                case let .databaseFailed(reason):
                    logger.log(.error, "database failed a batch", ["db.error": reason])
                default:
                    break
                }
                respond(IngestResponse.failure(failure))
            }
        }
        batcher.submit(submission)
    }

    /// The rejections kept as evidence: the first `maxStoredRejections` of the request, within the app's hourly
    /// quota. All of them are still answered; those not kept are counted.
    private func storable(_ rejections: [EventRejection], appID: Int64, receivedAt: Date) -> ArraySlice<EventRejection> {
        let perRequest = min(rejections.count, maxStoredRejections)
        let granted = rejectionQuota.take(perRequest, appID: appID, unixSeconds: Int64(receivedAt.timeIntervalSince1970))
        metrics.recordRejectionsNotStored(overRequestCap: rejections.count - perRequest, overAppQuota: perRequest - granted)
        return rejections.prefix(granted)
    }

    private func decode(_ request: HTTPRequest, admitted: AdmittedRequest, receivedAt: Date) -> Result<DecodedBatch, ResponseError> {
        guard let format = RequestHeadCheck.batchFormat(contentType: request.headers["Content-Type"]) else {
            return .failure(.init(IngestResponse.error(415, code: "unsupported_media_type",
                                                       message: "Content-Type must be application/json or application/x-ndjson")))
        }
        var body = request.body
        var inflatedReservation: MemoryBudget.Reservation?
        if ContentEncoding(header: request.headers["Content-Encoding"]) == .gzip {
            do {
                // Measured first, so that exactly its size is reserved and allocated, never more.
                let size = try Gzip.inflatedSize(of: body, maxOutputBytes: maxInflatedBytes)
                guard let reservation = memory.reserve(size, for: admitted.app.appID, besides: admitted.bodyReservation) else {
                    return .failure(.init(IngestResponse.failure(.outOfMemoryBudget)))
                }
                inflatedReservation = reservation
                body = try Gzip.inflate(body, exactBytes: size)
            } catch .outputTooLarge(let limit) {
                return .failure(.init(IngestResponse.error(
                    413, code: "payload_too_large", message: "the body inflates to more than \(limit) bytes"
                )))
            } catch {
                return .failure(.init(IngestResponse.error(400, code: "invalid_gzip", message: "the gzip body is corrupt")))
            }
        }
        defer { withExtendedLifetime(inflatedReservation) {} }
        do {
            let decoder = BatchDecoder(policy: retention.policy, maxEvents: maxEvents)
            return .success(try decoder.decode(body, format: format, receivedAt: receivedAt))
        } catch .tooManyEvents(let limit) {
            return .failure(.init(IngestResponse.tooManyEvents(limit: limit)))
        } catch {
            return .failure(.init(IngestResponse.error(400, code: "not_a_batch", message: String(describing: error))))
        }
    }
}

/// A response carried as an error through `Result`, for the early exits of request handling.
struct ResponseError: Error {
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
    }
}
