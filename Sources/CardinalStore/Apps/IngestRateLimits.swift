/// How fast one app may send to cardinald, as set in `cardinal.ingest_rate_limits`: `nil` keeps the daemon's
/// default for that bucket, `0` lifts the limit.
public struct IngestRateLimits: Sendable, Equatable {
    /// Events per second, sustained.
    public var eventsPerSecond: Int?
    /// Requests per second, sustained.
    public var requestsPerSecond: Int?

    /// Limits with the given overrides (none: the daemon's defaults).
    public init(eventsPerSecond: Int? = nil, requestsPerSecond: Int? = nil) {
        self.eventsPerSecond = eventsPerSecond
        self.requestsPerSecond = requestsPerSecond
    }
}
