extension PostgresConnection {
    /// Runs `body` inside `BEGIN` … `COMMIT`; if `body` throws, rolls back and rethrows.
    ///
    /// - Parameters:
    ///   - isolation: the transaction's isolation level; PostgreSQL's default, read committed, unless given.
    ///   - body: the work; it receives this connection.
    /// - Returns: what `body` returns, once the transaction has committed.
    /// - Throws: what `body` throws, or ``PostgresError`` when `BEGIN` or `COMMIT` fail (for example
    ///   `.serializationFailure`), or with `.inFailedSQLTransaction` when `body` caught a statement's error
    ///   and returned normally: the transaction is then rolled back instead of committed.
    /// - Warning: transactions do not nest: calling this inside another transaction is a programmer error.
    public func transaction<T>(
        isolation: IsolationLevel = .readCommitted, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        precondition(
            transactionStatus != .inTransaction && transactionStatus != .failed,
            "transaction(_:) cannot be nested: the connection is already inside a transaction"
        )
        try executeScript("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        let value: T
        do {
            value = try body(self)
        } catch {
            rollBackIfPossible()
            throw error
        }
        // COMMIT on a failed transaction "succeeds" with a ROLLBACK tag, so it must not be sent blindly.
        guard transactionStatus != .failed else {
            rollBackIfPossible()
            throw PostgresError(
                code: .server,
                message: "the transaction was rolled back: a statement in it failed and its error was not rethrown",
                sqlState: .inFailedSQLTransaction
            )
        }
        try executeScript("COMMIT")
        return value
    }

    /// Ends an open transaction with ROLLBACK, ignoring failures: the connection may already be gone, and the
    /// caller is about to report the original error.
    func rollBackIfPossible() {
        guard isConnected, transactionStatus == .inTransaction || transactionStatus == .failed else { return }
        _ = try? executeScript("ROLLBACK")
    }
}
