import CPostgreSQL

/// Asks the server to cancel the statement a connection is running, from any thread.
///
/// Made by ``PostgresConnection/makeCanceller()``. It keeps its own copy of what a cancel request needs (the
/// server's address and the backend's key), so it stays valid after its connection is closed; a cancel then
/// reaches no statement. The statement it cancels fails with SQLSTATE 57014 (`queryCanceled`), and a
/// transaction it was in must be rolled back. A cancel that arrives between two statements does nothing.
///
/// See [Canceling Queries in Progress](https://www.postgresql.org/docs/15/libpq-cancel.html).
public final class PostgresCanceller: Sendable {
    // OWNERSHIP: the canceller owns `cancel` from PQgetCancel until `deinit`, which calls PQfreeCancel exactly
    // once. The pointer never leaves this class. libpq documents PQcancel as safe to call from any thread (it
    // only reads the PGcancel and opens a connection of its own), so the class is Sendable although the
    // pointer is not.
    nonisolated(unsafe) private let cancel: OpaquePointer

    init?(connection: OpaquePointer) {
        guard let cancel = PQgetCancel(connection) else {
            return nil
        }
        self.cancel = cancel
    }

    deinit {
        PQfreeCancel(cancel)
    }

    /// Sends the cancel request and returns once the server has received it (not once the statement stopped).
    ///
    /// See [`PQcancel`](https://www.postgresql.org/docs/15/libpq-cancel.html#LIBPQ-PQCANCEL).
    /// - Returns: `nil` when it was sent, else libpq's reason (the server could not be reached).
    @discardableResult
    public func cancelRunningStatement() -> String? {
        var reason = [CChar](repeating: 0, count: 256)
        guard PQcancel(cancel, &reason, Int32(reason.count)) == 0 else {
            return nil
        }
        return String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension PostgresConnection {
    /// A canceller of this connection's statements, to be used from another thread (e.g. to stop a long
    /// statement at shutdown); `nil` when the connection is not open.
    ///
    /// See [`PQgetCancel`](https://www.postgresql.org/docs/15/libpq-cancel.html#LIBPQ-PQGETCANCEL).
    public func makeCanceller() -> PostgresCanceller? {
        PostgresCanceller(connection: handle)
    }
}
