/// One versioned schema migration: a plain SQL file from `SQL/migrations/` (tables, indexes, constraints, data
/// moves, drops), applied once, in order, in a transaction, and never edited after it landed.
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

    /// The name that marks a baseline: the migration that squashes every earlier one into the schema as it
    /// stood (`0083_baseline.sql`). A database migrated past the older files by an earlier release counts as
    /// having applied it; a new database runs it instead of them.
    public static let baselineName = "baseline"

    /// Whether this is the baseline (see ``baselineName``).
    public var isBaseline: Bool { name == Self.baselineName }

    /// The file name this migration was read from, as operators see it in `SQL/migrations/`.
    public var fileName: String {
        let number = String(version)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "_" + name + ".sql"
    }
}
