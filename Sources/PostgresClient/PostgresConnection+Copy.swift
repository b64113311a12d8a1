import CPostgreSQL

extension PostgresConnection {
    /// Runs a `COPY … FROM STDIN` statement and streams the rows that `body` writes.
    ///
    /// See [Functions Associated with the COPY Command](https://www.postgresql.org/docs/15/libpq-copy.html).
    /// - Parameters:
    ///   - copyStatement: for example `COPY events (id, name) FROM STDIN` (text format, the default, for
    ///     ``PostgresCopyWriter/writeRow(_:)``).
    ///   - body: writes the data; it is sent in chunks of about 64 KiB while `body` runs.
    /// - Returns: the number of rows copied.
    /// - Throws: what `body` throws, after aborting the COPY so that no rows are stored and the connection stays
    ///   usable; ``PostgresError`` when the statement is not a `COPY … FROM STDIN` (`.copyFailed`), when the
    ///   server rejects the data (`.server`, e.g. `.invalidTextRepresentation`), or when the connection drops.
    /// - Warning: the writer belongs to this call; do not keep it after `body` returns.
    @discardableResult
    public func copyIn(_ copyStatement: String, _ body: (inout PostgresCopyWriter) throws -> Void) throws -> Int {
        let started = PQexec(handle, copyStatement)
        guard let started, PQresultStatus(started) == PGRES_COPY_IN else {
            _ = try checked(started, statement: copyStatement)
            throw PostgresError(code: .copyFailed, message: "the statement is not a COPY … FROM STDIN", statement: copyStatement)
        }
        _ = ResultHandle(started)  // Clears the PGRES_COPY_IN result; the COPY's outcome comes later.

        var writer = PostgresCopyWriter(connection: self)
        do {
            try body(&writer)
            try writer.flush()
        } catch {
            abandonCopy(PGRES_COPY_IN)
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw PostgresError(
                code: isConnected ? .copyFailed : .connectionFailed,
                message: "could not finish the COPY: \(lastErrorMessage)",
                statement: copyStatement
            )
        }
        return try copyOutcome(statement: copyStatement)
    }

    /// Sends one chunk of COPY data with
    /// [`PQputCopyData`](https://www.postgresql.org/docs/15/libpq-copy.html#LIBPQ-PQPUTCOPYDATA).
    func sendCopyData(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        // SAFETY: libpq copies the bytes into its own buffer before returning; CChar and UInt8 may alias.
        guard PQputCopyData(handle, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count)) == 1 else {
            throw PostgresError(
                code: isConnected ? .copyFailed : .connectionFailed,
                message: "could not send COPY data: \(lastErrorMessage)"
            )
        }
    }

    /// Ends a COPY that the caller does not want to finish and discards what the server answers, so that the
    /// connection can run the next statement.
    func abandonCopy(_ status: ExecStatusType) {
        switch status {
        case PGRES_COPY_IN:
            // The server answers with error 57014 "COPY from stdin failed" and stores none of the rows.
            guard PQputCopyEnd(handle, "COPY aborted by the client") == 1 else { return }
        case PGRES_COPY_OUT:
            var row: UnsafeMutablePointer<CChar>?
            while true {
                let length = PQgetCopyData(handle, &row, 0)
                // OWNERSHIP: each row PQgetCopyData returns is ours and freed at once.
                if let row { PQfreemem(row) }
                row = nil
                if length < 0 { break }
            }
        default:
            // COPY BOTH (replication) cannot be ended from here; the connection stays unusable and is discarded.
            return
        }
        while let result = PQgetResult(handle) {
            if ResultHandle(result).isCopyInProgress { break }
        }
    }

    /// Reads the results after `PQputCopyEnd` until libpq has none left, and reports the first one.
    private func copyOutcome(statement: String) throws -> Int {
        var outcome: Result<Int, PostgresError>?
        while let result = PQgetResult(handle) {
            let handle = ResultHandle(result)
            if handle.isCopyInProgress {
                // libpq keeps returning this while the COPY is open; stop instead of looping forever.
                outcome = outcome ?? .failure(PostgresError(code: .copyFailed, message: "the COPY did not end", statement: statement))
                break
            }
            if handle.status == PGRES_COMMAND_OK {
                outcome = outcome ?? .success(handle.affectedRows)
            } else {
                outcome = outcome ?? .failure(handle.error(statement: statement, connectionLost: !isConnected))
            }
        }
        let missing = PostgresError(code: .protocolViolation, message: "the server sent no result for the COPY", statement: statement)
        return try (outcome ?? .failure(missing)).get()
    }
}

extension ResultHandle {
    /// Whether the result says a COPY is still open.
    var isCopyInProgress: Bool {
        status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH
    }
}
