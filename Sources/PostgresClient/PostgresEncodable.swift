/// A Swift value that can be a statement parameter, sent in PostgreSQL's text format.
///
/// Conforming types in this module: `String`, `Int`, `Int64`, `Int32`, `Int16`, `Double`, `Float`, `Bool`,
/// `Decimal`, `Date` (as `timestamptz`), `UUID`, `Data` and `[UInt8]` (as `bytea`), and ``PostgresJSON``.
/// Pass `nil` for SQL NULL.
public protocol PostgresEncodable: Sendable {
    /// The value as PostgreSQL's text input for its type, such as `42`, `t` or `2026-11-30T12:00:00.000000+00`.
    var postgresText: String { get }
}
