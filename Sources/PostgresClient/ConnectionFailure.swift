import CPostgreSQL

/// Turns libpq's connection error text into a ``PostgresError`` that says what failed and what to check.
///
/// libpq has no error code for a failed connection attempt (only `PQerrorMessage` text), so the kind of
/// failure is recognised from libpq's and the server's English messages. Under a translated `lc_messages` the
/// kind falls back to "connection failed"; the original text is always kept in the message.
enum ConnectionFailure {
    /// The error for a connection attempt that ended with `CONNECTION_BAD`.
    ///
    /// - Parameters:
    ///   - libpqMessage: `PQerrorMessage` of the failed connection.
    ///   - connectionString: what the caller passed, used only to tell a malformed string apart; it is never
    ///     quoted, because it may hold a password.
    static func error(libpqMessage: String, connectionString: String) -> PostgresError {
        if let parseError = parseError(of: connectionString) {
            let explanation = mayContainPassword(connectionString)
                ? "libpq's explanation is withheld because it may quote the password"
                : parseError
            return PostgresError(
                code: .connectionFailed,
                message: "cannot connect to PostgreSQL: invalid connection string: \(explanation)",
                hint: "Write a URI such as postgresql://user@host:5432/database or key=value pairs; see "
                    + "https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING"
            )
        }
        let text = libpqMessage.trimmingWhitespace()
        let (problem, hint) = classify(text)
        return PostgresError(code: .connectionFailed, message: "cannot connect to PostgreSQL: \(problem): \(text)", hint: hint)
    }

    private static func classify(_ text: String) -> (problem: String, hint: String?) {
        func mentions(_ fragments: String...) -> Bool {
            fragments.contains { text.localizedCaseInsensitiveContains($0) }
        }
        if mentions("does not exist") && mentions("database \"") {
            return ("database does not exist", "Create it (createdb) or fix the database name in the connection string.")
        }
        if mentions("does not exist") && mentions("role \"") {
            return ("role does not exist", "Create the role or fix the user name in the connection string.")
        }
        if mentions("authentication failed", "no password supplied", "pg_hba.conf") {
            return ("authentication failed", "Check the user name and password, and pg_hba.conf on the server.")
        }
        if mentions("too many clients", "remaining connection slots") {
            return ("server has no free connection slots", "Lower the pool size or raise max_connections.")
        }
        if mentions("starting up", "shutting down", "in recovery mode", "not yet accepting connections") {
            return ("server is not accepting connections yet", "Retry once the server has started.")
        }
        if mentions(
            "Connection refused", "could not translate host name", "No such file or directory", "timeout expired",
            "Network is unreachable", "No route to host", "could not connect", "server closed the connection"
        ) {
            return ("server unreachable", "Check that PostgreSQL is running and that host and port are right.")
        }
        return ("connection failed", nil)
    }

    /// libpq's complaint about a malformed connection string, or nil when the string parses.
    ///
    /// See [`PQconninfoParse`](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PQCONNINFOPARSE).
    private static func parseError(of connectionString: String) -> String? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        // OWNERSHIP: PQconninfoParse allocates either the options (freed with PQconninfoFree) or the error
        // message (freed with PQfreemem); both are freed before returning.
        if let options = PQconninfoParse(connectionString, &errorMessage) {
            PQconninfoFree(options)
            return nil
        }
        guard let errorMessage else { return "libpq is out of memory" }
        defer { PQfreemem(errorMessage) }
        return String(cString: errorMessage).trimmingWhitespace()
    }

    /// Whether the string may carry a password: a `password` keyword, or a URI whose user part has a colon.
    private static func mayContainPassword(_ connectionString: String) -> Bool {
        if connectionString.localizedCaseInsensitiveContains("password") { return true }
        guard let scheme = connectionString.range(of: "://") else { return false }
        let afterScheme = connectionString[scheme.upperBound...]
        guard let at = afterScheme.lastIndex(of: "@") else { return false }
        return afterScheme[..<at].contains(":")
    }
}
