/// One event that failed validation: where it was in the request, why, and the event itself as evidence.
///
/// Rejected events are answered in the `errors` of the ingest response and kept in a table of their own;
/// a rejection is never a reason to fail the rest of the request.
public struct EventRejection: Sendable, Equatable, Error {
    /// The 0-based position of the event in the request: its index in the `events` array, or, for NDJSON,
    /// its index among the non-blank lines.
    public var index: Int
    /// The `id` of the event as sent, when it was a string (even one that is not a valid UUID).
    public var id: String?
    /// The machine-readable reason.
    public var code: RejectionCode
    /// The human reason, naming the field and the rule, e.g.
    /// `field "user_id" is 600 characters; the limit is 511`.
    public var message: String
    /// The event as received: the NDJSON line itself, or the batch element re-serialized compactly.
    public var rawJSON: String

    /// Creates a rejection.
    public init(index: Int, id: String?, code: RejectionCode, message: String, rawJSON: String) {
        self.index = index
        self.id = id
        self.code = code
        self.message = message
        self.rawJSON = rawJSON
    }
}

extension EventRejection: CustomStringConvertible {
    /// `event <index> (<id>): <code>: <message>`, for logs and test failures.
    public var description: String {
        "event \(index)" + (id.map { " (\($0))" } ?? "") + ": \(code.rawValue): \(message)"
    }
}
