import CPostgreSQL

/// One libpq connection (`PGconn *`).
///
/// A connection runs one statement at a time and blocks the calling thread while it does: use it from
/// dedicated threads, never from the Swift concurrency pool, and share it only by lending it through
/// ``PostgresPool``. The session always uses `client_encoding` UTF8.
///
/// See [Database Connection Control Functions](https://www.postgresql.org/docs/15/libpq-connect.html).
public final class PostgresConnection {
    // OWNERSHIP: the connection owns `handle` from a successful PQconnectdbParams until `deinit`, which calls
    // PQfinish exactly once. The pointer never leaves this module.
    let handle: OpaquePointer
    // OWNERSHIP: libpq holds an unretained pointer to the relay as its notice-receiver argument. The relay is
    // a stored property, so it outlives every libpq call on `handle`, including PQfinish in `deinit`.
    private let noticeRelay = NoticeRelay()

    /// Opens a connection and waits until it is ready.
    ///
    /// See [`PQconnectdbParams`](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PQCONNECTDBPARAMS).
    /// - Parameter connectionString: a libpq connection string, as a URI
    ///   (`postgresql://user@host:5432/database?application_name=cardinald`) or as `key=value` pairs; see
    ///   [Connection Strings](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING).
    ///   Any `client_encoding` in it is replaced by UTF8. Without `connect_timeout` an unresponsive host can
    ///   block for as long as the operating system's TCP timeout.
    /// - Throws: ``PostgresError`` with code `.connectionFailed` and a message saying what failed: server
    ///   unreachable, authentication failed, database does not exist, invalid connection string, … The
    ///   password never appears in the message.
    public init(connectionString: String) throws {
        // The connection string is expanded in the `dbname` slot (expand_dbname = 1); keywords after it override
        // what the string says, which is how client_encoding is forced to UTF8.
        let keywords: [String?] = ["dbname", "client_encoding"]
        let values: [String?] = [connectionString, "UTF8"]
        let connection = CStringArray.withPointers(to: keywords, nullTerminated: true) { keywords in
            CStringArray.withPointers(to: values, nullTerminated: true) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection else {
            throw PostgresError(code: .connectionFailed, message: "cannot connect to PostgreSQL: libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            // OWNERSHIP: even a failed attempt allocates a PGconn; it was never handed to `self`, so it is
            // finished here, after its error message has been copied.
            let libpqMessage = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw ConnectionFailure.error(libpqMessage: libpqMessage, connectionString: connectionString)
        }
        handle = connection
        noticeRelay.install(on: connection)
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection can run the next statement: it is open (`PQstatus` is `CONNECTION_OK`), not in
    /// the middle of a command, and not inside a transaction that has failed.
    ///
    /// See [`PQstatus`](https://www.postgresql.org/docs/15/libpq-status.html#LIBPQ-PQSTATUS) and
    /// [`PQtransactionStatus`](https://www.postgresql.org/docs/15/libpq-status.html#LIBPQ-PQTRANSACTIONSTATUS).
    public var isUsable: Bool {
        isConnected && (transactionStatus == .idle || transactionStatus == .inTransaction)
    }

    /// Whether the session is inside a transaction block (`BEGIN` without its `COMMIT` or `ROLLBACK` yet),
    /// failed or not.
    public var isInTransaction: Bool {
        transactionStatus == .inTransaction || transactionStatus == .failed
    }

    /// Closes the connection and opens it again with the same parameters, for example after the server
    /// restarted. Check ``isUsable`` afterwards.
    ///
    /// See [`PQreset`](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PQRESET).
    public func reset() {
        PQreset(handle)
    }

    /// The server's version as one number: 150018 for 15.18.
    ///
    /// See [`PQserverVersion`](https://www.postgresql.org/docs/15/libpq-status.html#LIBPQ-PQSERVERVERSION).
    public var serverVersion: Int {
        Int(PQserverVersion(handle))
    }

    /// Receives the notices and warnings the server sends (`RAISE NOTICE`, …); nil, the default, drops them.
    ///
    /// The handler runs on the thread that runs the statement, before the statement returns.
    /// See [Notice Processing](https://www.postgresql.org/docs/15/libpq-notice-processing.html).
    public var noticeHandler: (@Sendable (PostgresNotice) -> Void)? {
        get { noticeRelay.handler }
        set { noticeRelay.handler = newValue }
    }

    /// Whether libpq considers the connection open.
    var isConnected: Bool {
        PQstatus(handle) == CONNECTION_OK
    }

    /// Where the session stands with respect to transactions.
    var transactionStatus: TransactionStatus {
        TransactionStatus(PQtransactionStatus(handle))
    }

    /// libpq's most recent error message for this connection, on one line.
    var lastErrorMessage: String {
        // SAFETY: PQerrorMessage's text belongs to the connection and is copied before returning.
        String(cString: PQerrorMessage(handle)).trimmingWhitespace()
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
