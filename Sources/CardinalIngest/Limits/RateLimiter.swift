import CardinalStore
import Synchronization

/// The rate limits of every app: a token bucket for requests and one for events per app, with the daemon's
/// default rates unless the app's row in `cardinal.ingest_rate_limits` says otherwise. A rate of 0 is no limit.
final class RateLimiter: Sendable {
    /// Which bucket refused.
    enum Bucket: String, Sendable {
        case requests, events
    }

    /// A refusal: which bucket, and how long until the app may send again.
    struct Refusal: Equatable, Sendable {
        let bucket: Bucket
        let retryAfter: Duration

        /// `Retry-After` in whole seconds, at least 1.
        var retryAfterSeconds: Int {
            max(1, Int(retryAfter.components.seconds) + (retryAfter.components.attoseconds > 0 ? 1 : 0))
        }
    }

    private struct AppBuckets {
        var requests: TokenBucket?
        var events: TokenBucket?
    }

    private let defaultEventsPerSecond: Int
    private let defaultRequestsPerSecond: Int
    private let buckets = Mutex([Int64: AppBuckets]())

    init(eventsPerSecond: Int, requestsPerSecond: Int) {
        defaultEventsPerSecond = eventsPerSecond
        defaultRequestsPerSecond = requestsPerSecond
    }

    /// Counts one request of the app, before its body is read: refused when its request bucket is empty, or
    /// when its event bucket is in debt (the body would be refused anyway, so it is not worth reading).
    func admitRequest(of app: IngestKeyLookup, now: ContinuousClock.Instant = .now) -> Refusal? {
        withBuckets(of: app, now: now) { buckets in
            if let wait = buckets.events?.wait(now: now) {
                return Refusal(bucket: .events, retryAfter: wait)
            }
            if let wait = buckets.requests?.take(1, now: now) {
                return Refusal(bucket: .requests, retryAfter: wait)
            }
            return nil
        }
    }

    /// Takes `count` events of the app, once its body is decoded.
    func admitEvents(_ count: Int, of app: IngestKeyLookup, now: ContinuousClock.Instant = .now) -> Refusal? {
        withBuckets(of: app, now: now) { buckets in
            buckets.events?.take(count, now: now).map { Refusal(bucket: .events, retryAfter: $0) }
        }
    }

    private func withBuckets(
        of app: IngestKeyLookup, now: ContinuousClock.Instant, _ body: (inout AppBuckets) -> Refusal?
    ) -> Refusal? {
        let eventRate = app.rateLimits.eventsPerSecond ?? defaultEventsPerSecond
        let requestRate = app.rateLimits.requestsPerSecond ?? defaultRequestsPerSecond
        return buckets.withLock { all in
            var buckets = all[app.appID] ?? AppBuckets()
            // A rate changed in the database starts a fresh bucket at the new rate.
            if buckets.events?.rate != Double(eventRate) {
                buckets.events = eventRate > 0 ? TokenBucket(rate: eventRate, now: now) : nil
            }
            if buckets.requests?.rate != Double(requestRate) {
                buckets.requests = requestRate > 0 ? TokenBucket(rate: requestRate, now: now) : nil
            }
            defer { all[app.appID] = buckets }
            return body(&buckets)
        }
    }
}
