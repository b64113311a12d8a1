/// One schema migration: a plain SQL file from `SQL/migrations/`, applied once, in order, in a transaction.
public struct Migration: Sendable, Equatable {
    /// The number the file name starts with (`0003_reports.sql` → 3); migrations apply in this order.
    public let version: Int
    /// The file name without its number and extension (`reports`).
    public let name: String
    /// The SQL text, applied as one script.
    public let sql: String

    /// Creates a migration from its parts.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The file name this migration was read from, as operators see it in `SQL/migrations/`.
    public var fileName: String {
        let number = String(version)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "_" + name + ".sql"
    }
}
