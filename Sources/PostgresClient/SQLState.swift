/// A five-character SQLSTATE error code reported by the server.
///
/// Compare against the named constants rather than string literals; the full list is in
/// [Appendix A of the PostgreSQL manual](https://www.postgresql.org/docs/15/errcodes-appendix.html).
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The five-character code, for example `"23505"`.
    public let rawValue: String

    /// Wraps a five-character code as sent in the `PG_DIAG_SQLSTATE` field.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The error class: the first two characters (`"23"` for every integrity constraint violation).
    public var errorClass: String {
        String(rawValue.prefix(2))
    }

    /// Whether the statement's data is at fault, so the same data fails again however often it is retried,
    /// while other data would pass: class `22` (data exception: a value out of range or malformed), class
    /// `23` (integrity constraint violation) except `23505` unique violations, and class `54` (program limit
    /// exceeded, e.g. an index entry too large).
    public var isDataError: Bool {
        switch errorClass {
        case "22", "54": true
        case "23": self != .uniqueViolation
        default: false
        }
    }

    /// The code itself, so SQLSTATEs read naturally in log lines.
    public var description: String {
        rawValue
    }
}

extension SQLState {
    /// `08000`: a connection exception with no more specific code.
    public static let connectionException = SQLState(rawValue: "08000")
    /// `08006`: the connection failed while in use.
    public static let connectionFailure = SQLState(rawValue: "08006")
    /// `22021`: a byte sequence is not valid in the database encoding (for example a NUL character in text).
    public static let characterNotInRepertoire = SQLState(rawValue: "22021")
    /// `22023`: a parameter value is out of its allowed domain.
    public static let invalidParameterValue = SQLState(rawValue: "22023")
    /// `22P02`: a value could not be parsed as its type, for example `'abc'::int`.
    public static let invalidTextRepresentation = SQLState(rawValue: "22P02")
    /// `23502`: a `NOT NULL` column got `NULL`.
    public static let notNullViolation = SQLState(rawValue: "23502")
    /// `23503`: a foreign key has no matching row.
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    /// `23505`: a unique index or primary key already holds the value.
    public static let uniqueViolation = SQLState(rawValue: "23505")
    /// `23514`: a `CHECK` constraint failed.
    public static let checkViolation = SQLState(rawValue: "23514")
    /// `23514`: no partition accepts the row. PostgreSQL reports "no partition of relation … found for row"
    /// with the same code as a failed `CHECK`, so this equals ``checkViolation``; tell them apart with
    /// ``PostgresError/isNoPartitionForRow``, which looks at the constraint name as well.
    public static let noPartitionForRow = SQLState(rawValue: "23514")
    /// `54000`: a limit of PostgreSQL was exceeded, for example an index entry larger than a B-tree allows.
    public static let programLimitExceeded = SQLState(rawValue: "54000")
    /// `25P02`: a statement ran in a transaction that had already failed.
    public static let inFailedSQLTransaction = SQLState(rawValue: "25P02")
    /// `40001`: a serializable transaction must be retried.
    public static let serializationFailure = SQLState(rawValue: "40001")
    /// `40P01`: the transaction was chosen as a deadlock victim.
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    /// `42501`: the role lacks a privilege.
    public static let insufficientPrivilege = SQLState(rawValue: "42501")
    /// `42601`: the SQL text does not parse.
    public static let syntaxError = SQLState(rawValue: "42601")
    /// `42704`: a named object (type, role, …) does not exist.
    public static let undefinedObject = SQLState(rawValue: "42704")
    /// `42710`: an object of that name already exists.
    public static let duplicateObject = SQLState(rawValue: "42710")
    /// `42883`: no function matches the name and argument types.
    public static let undefinedFunction = SQLState(rawValue: "42883")
    /// `42P01`: the table or view does not exist.
    public static let undefinedTable = SQLState(rawValue: "42P01")
    /// `42P07`: the table already exists.
    public static let duplicateTable = SQLState(rawValue: "42P07")
    /// `55P03`: a lock could not be taken immediately (`NOWAIT`, `lock_timeout`).
    public static let lockNotAvailable = SQLState(rawValue: "55P03")
    /// 25006: a write on a read-only server, e.g. a standby after a failover.
    public static let readOnlySQLTransaction = SQLState(rawValue: "25006")
    /// `57014`: the statement was canceled (cancel request or `statement_timeout`), also sent for an aborted COPY.
    public static let queryCanceled = SQLState(rawValue: "57014")
    /// `57P01`: the server is shutting down and terminated the session.
    public static let adminShutdown = SQLState(rawValue: "57P01")
    /// `57P02`: another server process crashed and the session was terminated.
    public static let crashShutdown = SQLState(rawValue: "57P02")
    /// `57P03`: the server is not accepting connections yet (starting up or in recovery).
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    /// `P0001`: a PL/pgSQL `RAISE EXCEPTION`.
    public static let raiseException = SQLState(rawValue: "P0001")
}
