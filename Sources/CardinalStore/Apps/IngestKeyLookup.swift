/// What the daemon learns from a valid ingest key: the app it sends for, and that app's rate limits.
public struct IngestKeyLookup: Sendable, Equatable {
    /// The app the key belongs to.
    public var appID: Int64
    /// The app's overrides of the daemon's rate limits.
    public var rateLimits: IngestRateLimits

    /// A lookup result.
    public init(appID: Int64, rateLimits: IngestRateLimits = IngestRateLimits()) {
        self.appID = appID
        self.rateLimits = rateLimits
    }
}
