/// A token bucket that refills at `rate` per second up to one second's worth, and lends: a take succeeds
/// whenever the bucket is not in debt, even for more tokens than it holds, and the debt is paid back by the
/// refill. So one request of many events is never refused for its size alone, while the sustained rate is
/// still `rate`. Pure: the caller passes the time in.
struct TokenBucket: Equatable {
    /// Tokens added per second; also the most the bucket holds.
    let rate: Double
    private(set) var tokens: Double
    private var updated: ContinuousClock.Instant

    /// A full bucket.
    init(rate: Int, now: ContinuousClock.Instant) {
        self.rate = Double(rate)
        tokens = Double(rate)
        updated = now
    }

    /// Takes `count` tokens unless the bucket is in debt; returns `nil` when taken, else how long until a take
    /// would succeed.
    mutating func take(_ count: Int, now: ContinuousClock.Instant) -> Duration? {
        if let wait = wait(now: now) {
            return wait
        }
        tokens -= Double(count)
        return nil
    }

    /// `nil` when a take would succeed now, else how long until it would.
    mutating func wait(now: ContinuousClock.Instant) -> Duration? {
        refill(now: now)
        guard tokens <= 0 else {
            return nil
        }
        // Until the debt is paid and a fraction of a token is back.
        return .seconds((-tokens + 0.001) / rate)
    }

    private mutating func refill(now: ContinuousClock.Instant) {
        let elapsed = now - updated
        updated = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(rate, tokens + seconds * rate)
    }
}
