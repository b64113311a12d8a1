/// One column of a SQL function's result, a view or a table, as the Swift code that reads it expects it: its
/// name and its type as PostgreSQL's `format_type` spells it (`bigint`, `double precision`,
/// `timestamp with time zone`).
public struct SQLColumn: Sendable, Equatable, CustomStringConvertible {
    /// The column's name.
    public let name: String
    /// The column's type, as `format_type` prints it.
    public let type: String

    /// A column named `name` of type `type`.
    public init(_ name: String, _ type: String) {
        self.name = name
        self.type = type
    }

    /// `users bigint`.
    public var description: String {
        "\(name) \(type)"
    }
}
