import CardinalStore
import Foundation
import PostgresClient
import Synchronization

/// Resolves `Authorization: Bearer` tokens to app ids, remembering answers for `timeToLive` so that the hot
/// path does not ask the database per request, while a revoked key stops working within that time.
final class IngestKeyCache: Sendable {
    /// The outcome of resolving a token.
    enum Resolution: Equatable {
        case app(Int64)
        case unknown
    }

    private struct Entry {
        let resolution: Resolution
        let expires: ContinuousClock.Instant
    }

    /// Unknown tokens are remembered too (a client with a bad key retries fast); this bounds the memory that a
    /// stream of random tokens can take.
    private static let maxEntries = 10_000

    /// A lookup that did not answer within the time the caller would wait; it goes on, and its answer is cached.
    struct LookupTimedOut: Error, CustomStringConvertible {
        let waited: Duration
        var description: String { "the key lookup did not answer within \(waited); it goes on in the background" }
    }

    private let pool: PostgresPool
    private let timeToLive: Duration
    private let entries = Mutex([String: Entry]())
    /// A lookup running on a thread of its own, and when it started.
    private struct Lookup {
        let result: ConditionProtected<Result<Resolution, any Error>?>
        let started: ContinuousClock.Instant
    }

    /// Lookups in progress, one per token: requests for the same token wait for the same one.
    private let lookups = Mutex([String: Lookup]())

    init(pool: PostgresPool, timeToLive: Duration) {
        self.pool = pool
        self.timeToLive = timeToLive
    }

    /// The cached answer, or `nil` when the database must be asked (`resolve`).
    func cached(_ token: String) -> Resolution? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[token], entry.expires > now else {
                return nil
            }
            return entry.resolution
        }
    }

    /// The last answer the database gave for `token`, however old: what lets a known app keep sending into the
    /// disk spool while the database cannot be asked. A key revoked just before an outage works until the
    /// database is back; a key never seen since the daemon started does not work until then.
    func lastKnown(_ token: String) -> Resolution? {
        entries.withLock { $0[token]?.resolution }
    }

    /// Asks the database and remembers the answer, waiting for it at most `timeout`: a connection stuck on a
    /// silent network holds a lookup until libpq's `tcp_user_timeout`, and a request must not wait that long.
    /// The lookup runs on a thread of its own and goes on after a timeout; concurrent calls for the same token
    /// share one lookup, and once it has run longer than `timeout` new calls do not wait for it at all.
    /// Blocks: call it off the HTTP thread.
    /// - Throws: `LookupTimedOut`, or `PostgresError` when the database cannot be asked.
    func resolve(_ token: String, timeout: Duration) throws -> Resolution {
        let now = ContinuousClock.now
        let (lookup, isNew) = lookups.withLock { lookups in
            if let running = lookups[token] {
                return (running, false)
            }
            let lookup = Lookup(result: ConditionProtected(nil), started: now)
            lookups[token] = lookup
            return (lookup, true)
        }
        if now - lookup.started >= timeout {
            throw LookupTimedOut(waited: timeout)
        }
        if isNew {
            let thread = Thread { [self] in
                let result = Result { try resolve(token) }
                lookups.withLock { $0[token] = nil }
                lookup.result.withLock { $0 = result }
                lookup.result.signalAll()
            }
            thread.name = "cardinal-key-lookup"
            thread.start()
        }
        let remaining = lookup.started + timeout - now
        let deadline = Date.now.addingTimeInterval(
            Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18)
        var outcome: Result<Resolution, any Error>?
        while outcome == nil, Date.now < deadline {
            lookup.result.withLockThenWait { result in
                outcome = result
                return result.map { _ in .proceed } ?? .until(deadline)
            }
        }
        guard let outcome else {
            throw LookupTimedOut(waited: timeout)
        }
        return try outcome.get()
    }

    /// Asks the database and remembers the answer. Blocks: call it off the HTTP thread.
    /// - Throws: `PostgresError` when the database cannot be asked.
    func resolve(_ token: String) throws -> Resolution {
        let appID = try pool.withConnection { try IngestKeyStore(connection: $0).resolve(token: token) }
        let resolution = appID.map(Resolution.app) ?? .unknown
        let entry = Entry(resolution: resolution, expires: .now + timeToLive)
        entries.withLock { entries in
            if entries.count >= Self.maxEntries {
                entries.removeAll(keepingCapacity: true)
            }
            entries[token] = entry
        }
        return resolution
    }
}
