import CPostgreSQL

extension PostgresConnection {
    /// Runs one statement built by interpolation and returns all of its rows.
    ///
    /// The bound values go to the server separately from the SQL, in text format, so they never need quoting.
    /// See [`PQexecParams`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQEXECPARAMS).
    /// - Parameter query: a single statement and its binds, such as `"select … where app_id = \(appID)"`.
    /// - Returns: the rows, copied out of libpq.
    /// - Throws: ``PostgresError``: the server's error (code `.server`, with SQLSTATE, detail, hint and the
    ///   statement) or `.connectionFailed` when the connection dropped.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        try run(query.sql, query.binds).rows()
    }

    /// Runs one statement built by interpolation and returns how many rows it inserted, updated, deleted,
    /// selected, … (see [`PQcmdTuples`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQCMDTUPLES)).
    ///
    /// - Parameter query: a single statement and its binds.
    /// - Returns: the affected row count; 0 for statements that report none (such as `CREATE TABLE`).
    /// - Throws: ``PostgresError`` as ``query(_:)`` does.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try run(query.sql, query.binds).affectedRows
    }

    /// Runs one statement with hand-numbered `$1…$n` parameters and returns all of its rows.
    ///
    /// Use ``query(_:)`` with a ``PostgresQuery``, which numbers the placeholders itself. This one is kept for
    /// the tests that build SQL as text, behind `@_spi(PositionalParameters) import PostgresClient` so that
    /// no module of Cardinal calls it by accident; nothing in `Sources` does. The parameters are required (an
    /// empty array for none) so that a one-argument call, interpolated or not, always builds a
    /// ``PostgresQuery``: an interpolated `String` here would splice its values into the SQL.
    /// - Parameters:
    ///   - sql: a single statement.
    ///   - parameters: the values of `$1`, `$2`, …; `nil` sends SQL `NULL`.
    /// - Returns: the rows, copied out of libpq.
    /// - Throws: ``PostgresError`` as ``query(_:)`` does.
    @discardableResult
    @_spi(PositionalParameters)
    public func query(_ sql: String, _ parameters: [(any PostgresEncodable)?]) throws -> PostgresRows {
        try run(sql, parameters).rows()
    }

    /// Runs one statement with hand-numbered `$1…$n` parameters and returns how many rows it affected.
    ///
    /// Prefer ``execute(_:)`` with a ``PostgresQuery``; see ``query(_:_:)`` for why the parameters are required.
    /// - Parameters:
    ///   - sql: a single statement.
    ///   - parameters: the values of `$1`, `$2`, …; `nil` sends SQL `NULL`.
    /// - Returns: the affected row count; 0 for statements that report none (such as `CREATE TABLE`).
    /// - Throws: ``PostgresError`` as ``query(_:)`` does.
    @discardableResult
    @_spi(PositionalParameters)
    public func execute(_ sql: String, _ parameters: [(any PostgresEncodable)?]) throws -> Int {
        try run(sql, parameters).affectedRows
    }

    /// Runs several `;`-separated statements without parameters, such as a migration file.
    ///
    /// Unless the script has its own `BEGIN`/`COMMIT`, the server runs it as one implicit transaction: a
    /// failing statement undoes the earlier ones. Rows the statements return are discarded.
    /// See [`PQexec`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQEXEC).
    /// - Throws: ``PostgresError`` for the first statement that fails.
    public func executeScript(_ sql: String) throws {
        _ = try checked(PQexec(handle, sql), statement: sql)
    }

    /// Sends one statement with parameters and returns its checked result.
    func run(_ sql: String, _ parameters: [(any PostgresEncodable)?]) throws -> ResultHandle {
        let texts = parameters.map { $0?.postgresText }
        if let position = texts.firstIndex(where: { $0?.utf8.contains(0) ?? false }) {
            // C strings end at a NUL, so libpq would silently cut the value short; PostgreSQL text cannot hold
            // NUL anyway, and the server reports the same SQLSTATE for NUL bytes in COPY data.
            throw PostgresError(
                code: .server,
                message: "parameter $\(position + 1) contains a NUL character, which PostgreSQL text cannot hold",
                sqlState: .characterNotInRepertoire,
                statement: sql
            )
        }
        let result = CStringArray.withPointers(to: texts) { values in
            PQexecParams(handle, sql, Int32(texts.count), nil, values, nil, nil, 0)
        }
        return try checked(result, statement: sql)
    }

    /// Takes ownership of `result` and turns any status but success into a thrown ``PostgresError``.
    ///
    /// Every status of [`PQresultStatus`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQRESULTSTATUS)
    /// is handled; a COPY that the statement started is ended so that the connection stays usable.
    func checked(_ result: OpaquePointer?, statement: String) throws -> ResultHandle {
        guard let result else {
            // libpq returns no result only when it is out of memory or could not send the statement.
            throw PostgresError(
                code: isConnected ? .protocolViolation : .connectionFailed,
                message: "could not send the statement: \(lastErrorMessage)",
                statement: statement
            )
        }
        let handle = ResultHandle(result)
        switch handle.status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return handle
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR:
            throw handle.error(statement: statement, connectionLost: !isConnected)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            abandonCopy(handle.status)
            throw PostgresError(
                code: .copyFailed,
                message: "the statement started a COPY; use copyIn(_:_:) for COPY … FROM STDIN "
                    + "(COPY … TO STDOUT is not supported)",
                statement: statement
            )
        default:
            throw PostgresError(
                code: .protocolViolation,
                message: "unexpected result status \(handle.statusName)",
                statement: statement
            )
        }
    }
}
