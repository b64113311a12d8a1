import CPostgreSQL

/// Owns one `PGresult` and copies what callers need out of it.
///
/// See [Main Functions](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-EXEC-MAIN) and
/// [Retrieving Query Result Information](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-EXEC-SELECT-INFO).
final class ResultHandle {
    // OWNERSHIP: created from a PGresult that libpq handed to us (PQexec, PQexecParams, PQgetResult); the
    // handle is its only owner and `deinit` calls PQclear exactly once. Never escapes this module.
    private let result: OpaquePointer

    /// Takes ownership of `result`.
    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit {
        PQclear(result)
    }

    /// [`PQresultStatus`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQRESULTSTATUS).
    var status: ExecStatusType {
        PQresultStatus(result)
    }

    /// The status's name, such as `PGRES_COPY_OUT`, for error messages.
    var statusName: String {
        String(cString: PQresStatus(status))
    }

    /// Rows affected by the command, from
    /// [`PQcmdTuples`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQCMDTUPLES);
    /// 0 for commands that report none.
    var affectedRows: Int {
        // SAFETY: PQcmdTuples returns a string owned by `result`, copied before returning.
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Copies every column name and value out of the result.
    func rows() -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var values: [String?] = []
        values.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                values.append(value(row: row, column: column))
            }
        }
        return PostgresRows(columns: columns, values: values, rowCount: rowCount, affectedRows: affectedRows)
    }

    private func value(row: Int32, column: Int32) -> String? {
        guard PQgetisnull(result, row, column) == 0 else { return nil }
        let length = Int(PQgetlength(result, row, column))
        // SAFETY: PQgetvalue points at `length` bytes (plus a NUL) owned by `result`, which outlives this call;
        // CChar and UInt8 may alias. The bytes are UTF-8 because the connection sets client_encoding UTF8.
        let start = UnsafeRawPointer(PQgetvalue(result, row, column)).assumingMemoryBound(to: UInt8.self)
        return String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
    }

    /// The server's error as a ``PostgresError``, for a result whose status is `PGRES_FATAL_ERROR`.
    ///
    /// - Parameters:
    ///   - statement: the SQL that produced the result.
    ///   - connectionLost: whether the connection is gone, which makes the code `.connectionFailed`.
    func error(statement: String, connectionLost: Bool) -> PostgresError {
        let message = DiagnosticField.message.value(in: result)
            ?? String(cString: PQresultErrorMessage(result)).trimmingWhitespace()
        return PostgresError(
            code: connectionLost ? .connectionFailed : .server,
            message: message.isEmpty ? "the server reported an error without a message" : message,
            sqlState: DiagnosticField.sqlState.value(in: result).map(SQLState.init(rawValue:)),
            detail: DiagnosticField.detail.value(in: result),
            hint: DiagnosticField.hint.value(in: result),
            statement: statement,
            constraint: DiagnosticField.constraint.value(in: result)
        )
    }
}

extension String {
    /// The text with line breaks and tabs folded into single spaces and no surrounding whitespace, so libpq's
    /// multi-line messages fit on one log line.
    func trimmingWhitespace() -> String {
        split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
