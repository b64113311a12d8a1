/// An error from the database or from this client: the server's diagnostics, or what failed on our side.
///
/// Server errors carry the fields libpq reports through
/// [`PQresultErrorField`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQRESULTERRORFIELD).
/// Messages never contain a password or a parameter value.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public enum Code: Sendable, Equatable {
        /// Connecting failed, the connection dropped while in use, or the pool is shut down.
        case connectionFailed
        /// The server rejected a statement, or would have (a parameter containing a NUL character is refused
        /// before sending, with the SQLSTATE the server uses for it); see ``PostgresError/sqlState``.
        case server
        /// A value could not be decoded into the requested Swift type.
        case decoding
        /// A COPY could not be started, streamed or finished.
        case copyFailed
        /// No pooled connection became free within the pool's acquire timeout.
        case poolTimeout
        /// libpq or the server answered in a way this client does not expect.
        case protocolViolation
    }

    /// What kind of failure this is.
    public let code: Code
    /// The server's SQLSTATE, when the server reported one.
    public let sqlState: SQLState?
    /// The primary, human-readable message.
    public let message: String
    /// The server's DETAIL line, for example `Key (id)=(1) already exists.`
    ///
    /// - Warning: it may quote stored data (a failed CHECK's `Failing row contains (…)`, a unique violation's
    ///   key): never log it. ``description`` leaves it out for that reason.
    public let detail: String?
    /// The server's HINT line, a suggestion about what to do.
    public let hint: String?
    /// The SQL text that failed, when the failure belongs to a statement.
    public let statement: String?
    /// The constraint that was violated, for constraint violations (`PG_DIAG_CONSTRAINT_NAME`).
    public let constraint: String?

    /// Creates an error; the client builds these itself, tests and fakes may too.
    public init(
        code: Code,
        message: String,
        sqlState: SQLState? = nil,
        detail: String? = nil,
        hint: String? = nil,
        statement: String? = nil,
        constraint: String? = nil
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.statement = statement
        self.constraint = constraint
    }

    /// Whether the connection itself is the problem (rather than the statement), so the work may succeed on
    /// another connection: connecting failed or the connection dropped, an SQLSTATE of class `08`, or the
    /// server terminating the session (`57P01`–`57P03`).
    public var isConnectionProblem: Bool {
        if code == .connectionFailed { return true }
        guard let sqlState else { return false }
        return sqlState.errorClass == "08"
            || sqlState == .adminShutdown || sqlState == .crashShutdown || sqlState == .cannotConnectNow
    }

    /// One line for logs: SQLSTATE, message, then hint and (shortened) statement when present.
    ///
    /// The DETAIL is left out: the server puts row data in it (`Failing row contains (…)` quotes a refused
    /// event's user id and properties), and logs never carry event data. Code that needs it reads ``detail``.
    public var description: String {
        var text = sqlState.map { "\($0): \(message)" } ?? message
        if let hint { text += " HINT: \(hint)" }
        if let statement {
            let limit = 200
            let shown = statement.count > limit ? statement.prefix(limit) + "…" : Substring(statement)
            text += " STATEMENT: \(shown)"
        }
        return text
    }
}
