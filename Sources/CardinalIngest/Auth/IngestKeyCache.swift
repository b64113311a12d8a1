import CardinalStore
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

    private let pool: PostgresPool
    private let timeToLive: Duration
    private let entries = Mutex([String: Entry]())

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
