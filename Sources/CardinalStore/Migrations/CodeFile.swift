/// One file of `SQL/code/`: the functions, views and triggers of one area, with their comments, owners and
/// grants. Unlike a ``Migration`` it is edited in place: `cardinal migrate` applies every code file again,
/// in order and in one transaction, whenever any of them changed.
public struct CodeFile: Sendable, Equatable {
    /// The file name (`090_unique_impressions.sql`); files apply in the order of their names.
    public let fileName: String
    /// The SQL text, applied as one script.
    public let sql: String

    /// Creates a code file from its parts.
    public init(fileName: String, sql: String) {
        self.fileName = fileName
        self.sql = sql
    }
}
