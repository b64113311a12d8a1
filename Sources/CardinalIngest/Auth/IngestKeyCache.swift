import CardinalStore
import Dispatch
import Synchronization

/// Resolves `Authorization: Bearer` tokens to apps, remembering answers so that the hot path does not ask the
/// database per request, while a revoked key stops working within `timeToLive`.
///
/// Built for tokens chosen by an attacker: unknown tokens are remembered apart from known ones and for a short
/// time, so a stream of random tokens evicts only other unknown tokens, one at a time; concurrent requests
/// with the same token share one lookup; lookups run on threads of their own, a fixed number of them, so
/// neither a flood of tokens nor a stuck database takes more threads or connections than that.
final class IngestKeyCache: Sendable {
    /// The outcome of resolving a token.
    enum Resolution: Equatable, Sendable {
        case app(IngestKeyLookup)
        case unknown
    }

    /// A lookup that did not answer within the time the caller would wait; it goes on, and its answer is cached.
    struct LookupTimedOut: Error, CustomStringConvertible {
        let waited: Duration
        var description: String { "the key lookup did not answer within \(waited); it goes on in the background" }
    }

    /// The callback of a ``resolve(_:timeout:completion:)``.
    typealias Completion = @Sendable (Result<Resolution, any Error>) -> Void

    private struct Known {
        let lookup: IngestKeyLookup
        let expires: ContinuousClock.Instant
    }

    /// A lookup queued or running, and the requests waiting for it.
    private struct Pending {
        let started: ContinuousClock.Instant
        var waiters: [UInt64: Completion] = [:]
    }

    private struct State {
        var known: FIFOCache<String, Known>
        var unknown: FIFOCache<String, ContinuousClock.Instant>
        var pending: [String: Pending] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let lookup: @Sendable (String) throws -> IngestKeyLookup?
    private let timeToLive: Duration
    private let unknownTimeToLive: Duration
    private let workers: BlockingWorkers
    private let state: Mutex<State>

    /// - Parameters:
    ///   - lookup: asks the database for a token (blocking); runs on the cache's own threads.
    ///   - timeToLive: how long a known key's answer is used.
    ///   - unknownTimeToLive: how long "unknown" is remembered: briefly, so a key created a moment ago works
    ///     soon, while a client retrying a bad key in a loop costs one query per interval.
    ///   - maxEntries: known and unknown tokens remembered, each.
    ///   - threads: lookups that may run at once (each holds one database connection while it runs).
    init(
        lookup: @escaping @Sendable (String) throws -> IngestKeyLookup?, timeToLive: Duration,
        unknownTimeToLive: Duration = .seconds(1), maxEntries: Int = 10_000, threads: Int = 2
    ) {
        self.lookup = lookup
        self.timeToLive = timeToLive
        self.unknownTimeToLive = min(unknownTimeToLive, timeToLive)
        workers = BlockingWorkers(threads: threads, name: "cardinal-key-lookup")
        state = Mutex(State(known: FIFOCache(capacity: maxEntries), unknown: FIFOCache(capacity: maxEntries)))
    }

    /// Lets the lookup threads end.
    func stop() {
        workers.stop()
    }

    /// The cached answer, or `nil` when the database must be asked.
    func cached(_ token: String) -> Resolution? {
        let now = ContinuousClock.now
        return state.withLock { Self.cached(token, in: $0, now: now) }
    }

    private static func cached(_ token: String, in state: State, now: ContinuousClock.Instant) -> Resolution? {
        if let known = state.known[token], known.expires > now {
            return .app(known.lookup)
        }
        if let expires = state.unknown[token], expires > now {
            return .unknown
        }
        return nil
    }

    /// The last answer the database gave for a valid `token`, however old: what lets a known app keep sending
    /// into the disk spool while the database cannot be asked. A key revoked just before an outage works until
    /// the database is back; a key never seen since the daemon started does not work until then.
    func lastKnown(_ token: String) -> IngestKeyLookup? {
        state.withLock { $0.known[token]?.lookup }
    }

    /// Calls `completion` once with the answer for `token`: at once (on this thread) from the cache, else when
    /// a lookup thread has asked the database, or with `LookupTimedOut` after `timeout` (a connection stuck on
    /// a silent network holds a lookup until libpq's `tcp_user_timeout`, and a request must not wait that
    /// long). Once a lookup has run longer than `timeout`, new requests for its token fail at once.
    func resolve(_ token: String, timeout: Duration, completion: @escaping Completion) {
        let now = ContinuousClock.now
        enum Step { case answer(Resolution), tooSlow, wait(UInt64, startLookup: Bool) }
        let step: Step = state.withLock { state in
            if let cached = Self.cached(token, in: state, now: now) {
                return .answer(cached)
            }
            let isNew = state.pending[token] == nil
            var pending = state.pending[token] ?? Pending(started: now)
            if now - pending.started >= timeout {
                return .tooSlow
            }
            state.nextWaiter += 1
            pending.waiters[state.nextWaiter] = completion
            state.pending[token] = pending
            return .wait(state.nextWaiter, startLookup: isNew)
        }
        switch step {
        case .answer(let resolution):
            completion(.success(resolution))
        case .tooSlow:
            completion(.failure(LookupTimedOut(waited: timeout)))
        case .wait(let waiter, let startLookup):
            if startLookup {
                workers.submit { [self] in finishLookup(token, result: Result { try resolveNow(token) }) }
            }
            // Only a timer waits here: the Dispatch pool is not blocked by it.
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(timeout.nanoseconds))) { [self] in
                let late = state.withLock { $0.pending[token]?.waiters.removeValue(forKey: waiter) }
                late?(.failure(LookupTimedOut(waited: timeout)))
            }
        }
    }

    /// Asks the database and remembers the answer. Blocks: the cache calls it on its own threads.
    /// - Throws: `PostgresError` when the database cannot be asked.
    func resolveNow(_ token: String) throws -> Resolution {
        let found = try lookup(token)
        let now = ContinuousClock.now
        state.withLock { state in
            if let found {
                state.known.set(Known(lookup: found, expires: now + timeToLive), for: token)
            } else {
                state.unknown.set(now + unknownTimeToLive, for: token)
            }
        }
        return found.map(Resolution.app) ?? .unknown
    }

    private func finishLookup(_ token: String, result: Result<Resolution, any Error>) {
        let waiters = state.withLock { $0.pending.removeValue(forKey: token)?.waiters.values }
        for waiter in waiters.map(Array.init) ?? [] {
            waiter(result)
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
