/// A Swift value that can be read from PostgreSQL's text output for a column.
///
/// Conforming types in this module: those listed on ``PostgresEncodable``, plus `Optional` of any of them,
/// which decodes SQL NULL as nil.
public protocol PostgresDecodable: Sendable {
    /// Parses the server's text output.
    ///
    /// - Throws: any error, typically ``PostgresDecodingFailure``, when the text is not a valid value;
    ///   ``PostgresRow/decode(_:at:)`` wraps it in a ``PostgresError`` naming the column.
    init(postgresText: String) throws
}

/// A type that has a value for SQL NULL; only `Optional` conforms.
protocol PostgresNullable {
    /// The value that stands for SQL NULL.
    static var postgresNull: Self { get }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    /// Decodes a non-NULL value as `Wrapped`; NULL never reaches here (it becomes nil in the row).
    public init(postgresText: String) throws {
        self = .some(try Wrapped(postgresText: postgresText))
    }
}

extension Optional: PostgresNullable where Wrapped: PostgresDecodable {
    static var postgresNull: Self { nil }
}
