import Foundation
import Synchronization

/// A small blocking pool of ``PostgresConnection``s for dedicated threads (not for Swift concurrency tasks:
/// waiting for a connection blocks the calling thread).
///
/// Connections open lazily, up to `maxConnections`. A connection that is broken after use, or that the body
/// left inside a transaction that cannot be rolled back, is closed instead of reused.
public final class PostgresPool: Sendable {
    private let connectionString: String
    private let acquireTimeout: Duration
    private let noticeHandler: (@Sendable (PostgresNotice) -> Void)?
    private let state: Mutex<PoolStateMachine<PooledConnection>>
    /// Wakes threads waiting for a grant. Grants live in `state`; a thread checks for its grant while holding
    /// the condition's lock, and grants are announced while holding it, so no wake-up is lost.
    private let wakeUp = NSCondition()

    /// Creates a pool; no connection is opened until one is needed.
    ///
    /// - Parameters:
    ///   - connectionString: a libpq connection string, as for ``PostgresConnection/init(connectionString:)``.
    ///   - maxConnections: the most connections open at once (at least 1).
    ///   - acquireTimeout: how long ``withConnection(_:)`` waits for a free connection.
    ///   - noticeHandler: receives the server's notices on every connection of the pool.
    public init(
        connectionString: String,
        maxConnections: Int,
        acquireTimeout: Duration = .seconds(5),
        noticeHandler: (@Sendable (PostgresNotice) -> Void)? = nil
    ) {
        self.connectionString = connectionString
        self.acquireTimeout = acquireTimeout
        self.noticeHandler = noticeHandler
        state = Mutex(PoolStateMachine(maxConnections: maxConnections))
    }

    /// Lends a connection to `body`, opening one if none is idle and fewer than `maxConnections` are open,
    /// otherwise waiting for one to come back.
    ///
    /// Afterwards the connection returns to the pool, unless it is broken or `body` threw a connection problem;
    /// a transaction `body` left open is rolled back, and a notice handler `body` set is replaced by the pool's.
    /// - Parameter body: the work; it must not keep the connection.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; ``PostgresError`` with `.poolTimeout` when no connection became free in
    ///   time, `.connectionFailed` when opening one failed or the pool is shut down.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let pooled = try acquire()
        let value: T
        do {
            value = try body(pooled.connection)
        } catch {
            release(pooled, reusable: prepareForReuse(pooled.connection, after: error))
            throw error
        }
        release(pooled, reusable: prepareForReuse(pooled.connection, after: nil))
        return value
    }

    /// Closes the idle connections and refuses later ``withConnection(_:)`` calls; connections in use close
    /// when they come back, and threads waiting for one fail.
    public func shutdown() {
        perform(state.withLock { $0.shutDown() })
    }

    private func acquire() throws -> PooledConnection {
        switch state.withLock({ $0.acquire() }) {
        case .lease(let lease): try take(lease)
        case .wait(let waiter): try take(wait(for: waiter))
        case .shutDown: throw Self.shutDownError
        }
    }

    private func wait(for waiter: PoolStateMachine<PooledConnection>.WaiterID) throws -> PoolStateMachine<PooledConnection>.Lease {
        let seconds = acquireTimeout.components
        let deadline = Date(timeIntervalSinceNow: Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18)
        wakeUp.lock()
        defer { wakeUp.unlock() }
        while true {
            if let grant = state.withLock({ $0.claim(waiter) }) {
                return try lease(from: grant)
            }
            if !wakeUp.wait(until: deadline) {
                guard let grant = state.withLock({ $0.timeOut(waiter) }) else {
                    throw PostgresError(
                        code: .poolTimeout,
                        message: "no database connection became free within \(acquireTimeout) "
                            + "(all \(state.withLock { $0.maxConnections }) connections of the pool are in use)"
                    )
                }
                return try lease(from: grant)
            }
        }
    }

    private func lease(from grant: PoolStateMachine<PooledConnection>.Grant) throws -> PoolStateMachine<PooledConnection>.Lease {
        switch grant {
        case .lease(let lease): lease
        case .shutDown: throw Self.shutDownError
        }
    }

    private func take(_ lease: PoolStateMachine<PooledConnection>.Lease) throws -> PooledConnection {
        switch lease {
        case .use(let pooled):
            return pooled
        case .open:
            do {
                let connection = try PostgresConnection(connectionString: connectionString)
                connection.noticeHandler = noticeHandler
                return PooledConnection(connection: connection)
            } catch {
                perform(state.withLock { $0.openFailed() })
                throw error
            }
        }
    }

    private func release(_ pooled: PooledConnection, reusable: Bool) {
        perform(state.withLock { $0.release(pooled, reusable: reusable) })
    }

    /// Carries out what the state machine asked for, outside its lock.
    private func perform(_ effects: PoolStateMachine<PooledConnection>.Effects) {
        if effects.wakeWaiters {
            wakeUp.lock()
            wakeUp.broadcast()
            wakeUp.unlock()
        }
        // Connections in `effects.close` close (PQfinish, which talks to the server) as the last reference to
        // them goes away at the end of this call, not while the lock is held.
    }

    /// Whether `connection` can go back to the pool after `body` finished, rolling back a transaction it
    /// left open and restoring the pool's notice handler.
    private func prepareForReuse(_ connection: PostgresConnection, after error: (any Error)?) -> Bool {
        if let error = error as? PostgresError, error.isConnectionProblem { return false }
        guard connection.isConnected else { return false }
        connection.noticeHandler = noticeHandler
        switch connection.transactionStatus {
        case .idle:
            return true
        case .inTransaction, .failed:
            connection.rollBackIfPossible()
            return connection.isConnected && connection.transactionStatus == .idle
        case .active, .unknown:
            return false
        }
    }

    private static var shutDownError: PostgresError {
        PostgresError(code: .connectionFailed, message: "the connection pool has been shut down")
    }
}

/// A connection while it sits in the pool's state or moves between threads through it.
struct PooledConnection {
    let connection: PostgresConnection
}

// The pool hands each connection to one thread at a time: a connection is either idle inside the Mutex-guarded
// state, or lent to exactly one `withConnection` call, which gives it back before returning. So the
// non-Sendable connection is never used by two threads at once, which is all PostgresConnection requires.
extension PooledConnection: @unchecked Sendable {}
