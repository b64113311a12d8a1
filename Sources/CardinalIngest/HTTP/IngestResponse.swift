import CardinalCore
import MicroHTTP

/// The bodies and statuses the ingest API answers with.
enum IngestResponse {
    /// `200` with per-event results: `{"accepted":n,"duplicates":m,"rejected":k,"errors":[…]}`, fields in that
    /// order (a reader scanning a log sees the counts first), `id` null when the event had no readable id.
    static func batchResult(accepted: Int, duplicates: Int, rejections: [EventRejection]) -> HTTPResponse {
        let errors = rejections.map { rejection in
            JSONValue.object(JSONObject([
                "index": .number(String(rejection.index)),
                "id": rejection.id.map { .string(echoed($0)) } ?? .null,
                "code": .string(rejection.code.rawValue),
                "message": .string(rejection.message),
            ]))
        }
        let body = JSONValue.object(JSONObject([
            "accepted": .number(String(accepted)),
            "duplicates": .number(String(duplicates)),
            "rejected": .number(String(rejections.count)),
            "errors": .array(errors),
        ]))
        return .json(200, Array(body.compactText.utf8))
    }

    /// A request-level error: `{"error":{"code":"…","message":"…"}}`, with `Retry-After` for 503 and 429.
    static func error(_ status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) -> HTTPResponse {
        let body = JSONValue.object(JSONObject([
            "error": .object(JSONObject(["code": .string(code), "message": .string(message)])),
        ]))
        var response = HTTPResponse.json(status, Array(body.compactText.utf8))
        if let retryAfterSeconds {
            response.headers.add(name: "Retry-After", value: String(retryAfterSeconds))
        }
        return response
    }

    /// `429` for an app over its rate: nothing of the request was read or stored.
    static func rateLimited(_ refusal: RateLimiter.Refusal) -> HTTPResponse {
        let what = refusal.bucket == .events ? "events" : "requests"
        return error(429, code: "rate_limited",
                     message: "this app sends more \(what) per second than it may; nothing of this request was stored, "
                         + "retry after \(refusal.retryAfterSeconds) s",
                     retryAfterSeconds: refusal.retryAfterSeconds)
    }

    /// `413` for a body with more events than a request may carry.
    static func tooManyEvents(limit: Int) -> HTTPResponse {
        error(413, code: "too_many_events",
              message: "the body holds more than \(limit) events; send at most \(limit) per request (nothing was stored)")
    }

    /// The longest event id echoed in `errors`, in Unicode scalars; a longer one is cut there and ends in `…`.
    static let maxEchoedIDLength = 64

    /// `id` as echoed in an error: an id is not a UUID when it is rejected, and may be of any length.
    static func echoed(_ id: String) -> String {
        let scalars = id.unicodeScalars
        guard scalars.count > maxEchoedIDLength else { return id }
        return String(String.UnicodeScalarView(scalars.prefix(maxEchoedIDLength))) + "…"
    }

    /// The answer for a submission that was not written.
    static func failure(_ failure: WriteFailure) -> HTTPResponse {
        switch failure {
        case .databaseUnavailable:
            error(503, code: "database_unavailable",
                  message: "the database is unavailable; nothing of this request was stored, retry later",
                  retryAfterSeconds: 5)
        case .notReplicated:
            error(503, code: "not_replicated",
                  message: "the events were not confirmed by a synchronous standby of the database; retry later "
                      + "(events that were stored after all come back as duplicates)",
                  retryAfterSeconds: 5)
        case .queueFull:
            error(503, code: "overloaded",
                  message: "too many events are waiting to be written; nothing of this request was stored, retry later",
                  retryAfterSeconds: 1)
        case .outOfMemoryBudget:
            error(503, code: "overloaded",
                  message: "the daemon holds as many request bodies as it may; nothing of this request was stored, retry later",
                  retryAfterSeconds: 1)
        case .timedOut:
            error(503, code: "timeout",
                  message: "the events could not be written in time; nothing of this request was stored, retry later",
                  retryAfterSeconds: 2)
        case .shuttingDown:
            error(503, code: "shutting_down",
                  message: "the daemon is shutting down; nothing of this request was stored, retry later",
                  retryAfterSeconds: 1)
        case .refusedByDatabase, .databaseFailed:
            error(500, code: "internal_error",
                  message: "the database refused this request's events; nothing of it was stored (see the daemon log)")
        }
    }
}
