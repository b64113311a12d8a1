/// A notice or warning the server sent while running a statement (`RAISE NOTICE`, "table does not exist,
/// skipping", …), delivered to ``PostgresConnection/noticeHandler``.
///
/// See [Notice Processing](https://www.postgresql.org/docs/15/libpq-notice-processing.html).
public struct PostgresNotice: Sendable {
    /// The untranslated severity: `WARNING`, `NOTICE`, `DEBUG`, `INFO` or `LOG`.
    public let severity: String
    /// The primary message.
    public let message: String
    /// The SQLSTATE of the notice, for example `00000` or `01000`.
    public let sqlState: SQLState?

    /// Creates a notice; the client builds these from the server's message, tests may too.
    public init(severity: String, message: String, sqlState: SQLState?) {
        self.severity = severity
        self.message = message
        self.sqlState = sqlState
    }
}
