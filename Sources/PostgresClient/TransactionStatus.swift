import CPostgreSQL

/// The session's transaction state, from
/// [`PQtransactionStatus`](https://www.postgresql.org/docs/15/libpq-status.html#LIBPQ-PQTRANSACTIONSTATUS).
enum TransactionStatus: Equatable {
    /// Not in a transaction, ready for a statement.
    case idle
    /// A command is in progress (for example a COPY that was not finished).
    case active
    /// Inside a transaction block that is still good.
    case inTransaction
    /// Inside a transaction block in which a statement failed: only ROLLBACK helps.
    case failed
    /// The connection is bad.
    case unknown

    init(_ status: PGTransactionStatusType) {
        switch status {
        case PQTRANS_IDLE: self = .idle
        case PQTRANS_ACTIVE: self = .active
        case PQTRANS_INTRANS: self = .inTransaction
        case PQTRANS_INERROR: self = .failed
        default: self = .unknown
        }
    }
}
