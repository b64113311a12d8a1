import CardinalStore
import Testing

@testable import CardinalIngest

@Suite struct RateLimitTests {
    private let start = ContinuousClock.now

    @Test("A bucket lends: one take larger than its rate passes, then it refuses until the debt is paid")
    func bucketLends() {
        var bucket = TokenBucket(rate: 100, now: start)
        #expect(bucket.take(250, now: start) == nil)
        // 150 in debt at 100/s: 1.5 s (and a hair) until the next take.
        let wait = bucket.take(1, now: start) ?? .zero
        #expect(wait > .milliseconds(1500) && wait < .milliseconds(1510))
        #expect(bucket.take(1, now: start + .milliseconds(1400)) != nil)
        #expect(bucket.take(1, now: start + .milliseconds(1600)) == nil)
    }

    @Test("A bucket refills to one second's worth at most")
    func bucketCapacity() {
        var bucket = TokenBucket(rate: 10, now: start)
        _ = bucket.take(10, now: start)
        _ = bucket.wait(now: start + .seconds(60))
        #expect(bucket.tokens == 10)
    }

    @Test("An app over its request rate is refused with the wait; another app is not affected")
    func requestRatePerApp() throws {
        let limiter = RateLimiter(eventsPerSecond: 0, requestsPerSecond: 2)
        let flooding = IngestKeyLookup(appID: 1)
        let quiet = IngestKeyLookup(appID: 2)
        #expect(limiter.admitRequest(of: flooding, now: start) == nil)
        #expect(limiter.admitRequest(of: flooding, now: start) == nil)
        let refusal = try #require(limiter.admitRequest(of: flooding, now: start))
        #expect(refusal.bucket == .requests)
        #expect(refusal.retryAfterSeconds == 1)
        #expect(limiter.admitRequest(of: quiet, now: start) == nil)
    }

    @Test("An app's own limits override the daemon's, and 0 lifts a limit")
    func perAppOverrides() {
        let limiter = RateLimiter(eventsPerSecond: 10, requestsPerSecond: 1)
        let unlimited = IngestKeyLookup(appID: 1, rateLimits: IngestRateLimits(eventsPerSecond: 0, requestsPerSecond: 0))
        for _ in 0..<100 {
            #expect(limiter.admitRequest(of: unlimited, now: start) == nil)
            #expect(limiter.admitEvents(1000, of: unlimited, now: start) == nil)
        }
        let strict = IngestKeyLookup(appID: 2, rateLimits: IngestRateLimits(eventsPerSecond: 5))
        #expect(limiter.admitEvents(6, of: strict, now: start) == nil)
        #expect(limiter.admitEvents(1, of: strict, now: start)?.bucket == .events)
        // An app whose event bucket is in debt is refused from its head alone, before its body is read.
        #expect(limiter.admitRequest(of: strict, now: start)?.bucket == .events)
    }

    @Test("The rejection quota keeps an app to its hourly count and starts again the next hour")
    func rejectionQuota() {
        let quota = RejectionQuota(perAppPerHour: 10)
        let hour: Int64 = 1_700_000_000 / 3600 * 3600
        #expect(quota.take(6, appID: 1, unixSeconds: hour) == 6)
        #expect(quota.take(6, appID: 1, unixSeconds: hour + 10) == 4)
        #expect(quota.take(6, appID: 1, unixSeconds: hour + 20) == 0)
        #expect(quota.take(6, appID: 2, unixSeconds: hour + 20) == 6)
        #expect(quota.take(6, appID: 1, unixSeconds: hour + 3600) == 6)
    }

    @Test("A full FIFO cache evicts its oldest entry, one per new key, and updates keep their place")
    func fifoCache() {
        var cache = FIFOCache<String, Int>(capacity: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(3, for: "c")
        cache.set(10, for: "a")
        cache.set(4, for: "d")
        #expect(cache["a"] == nil)
        #expect(cache["b"] == 2)
        #expect(cache["d"] == 4)
        #expect(cache.count == 3)
        cache.set(5, for: "e")
        #expect(cache["b"] == nil)
        #expect(cache["c"] == 3)
    }
}
