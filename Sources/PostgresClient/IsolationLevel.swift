/// A transaction isolation level, as `BEGIN ISOLATION LEVEL …` spells it.
///
/// See <https://www.postgresql.org/docs/15/transaction-iso.html>.
public enum IsolationLevel: String, Sendable {
    /// Each statement sees what was committed before it started (PostgreSQL's default).
    case readCommitted = "READ COMMITTED"
    /// Every statement sees what was committed before the transaction's first statement.
    case repeatableRead = "REPEATABLE READ"
    /// Repeatable read that also fails transactions whose outcome no serial order could give.
    case serializable = "SERIALIZABLE"
}
