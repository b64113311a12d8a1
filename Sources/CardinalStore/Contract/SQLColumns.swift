public import PostgresClient

/// The columns Swift reads from one SQL function, view or table: the one place where the reading code names them.
///
/// A query selects ``selectList`` and decodes each column through the subscript, so it can read no column that
/// is not declared here; the contract test (`SQLContractTests`) holds every declaration of ``SQLColumns/all``
/// against what PostgreSQL reports for the object.
public struct SQLColumns: Sendable {
    /// What the columns are the result of.
    public enum Source: Sendable {
        /// A function returning a table, OUT parameters or a table's row type.
        case function
        /// A table or a view.
        case relation
    }

    /// The qualified name of the function, view or table (`cardinal.send_arms`).
    public let object: String
    /// Whether ``object`` is a function or a relation.
    public let source: Source
    /// The columns, in the object's order.
    public let columns: [SQLColumn]
    /// Whether Swift relies on the order of the columns as well as on their names and types.
    public let ordered: Bool
    /// Whether the declaration names every column of the object; `false` for a table of which Swift reads some
    /// columns (a key's hash is written and matched, never read back).
    public let complete: Bool

    /// Declares the columns of the function or relation `object`.
    public init(
        _ source: Source, _ object: String, ordered: Bool = false, complete: Bool = true, _ columns: [SQLColumn]
    ) {
        self.object = object
        self.source = source
        self.columns = columns
        self.ordered = ordered
        self.complete = complete
    }

    /// The name of the declared column `name`, for decoding a row; a name that is not declared is a programmer
    /// error.
    public subscript(name: String) -> String {
        precondition(columns.contains { $0.name == name }, "\(object) declares no column \"\(name)\"")
        return name
    }

    /// The object's name as a quoted identifier, for the `from` of a query (`"cardinal"."send_arms"`).
    public var objectName: PostgresQuery {
        .identifier(object.split(separator: ".").map(String.init))
    }

    /// `"app_name", "campaign_id", …`: every declared column, as a select list.
    public var selectList: PostgresQuery {
        "\(identifiers: columns.map(\.name))"
    }

    /// `"s"."app_id", "s"."campaign_id", …`: every declared column of the relation called `alias` in a join.
    public func selectList(qualifiedBy alias: String) -> PostgresQuery {
        columns.map { PostgresQuery.identifier([alias, $0.name]) }.joined(separator: ", ")
    }
}
