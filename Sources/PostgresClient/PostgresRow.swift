/// One row of ``PostgresRows``: its values as PostgreSQL's text output, decoded on demand.
public struct PostgresRow: Sendable {
    /// The column names, in order.
    public let columns: [String]
    private let values: ArraySlice<String?>

    init(columns: [String], values: ArraySlice<String?>) {
        self.columns = columns
        self.values = values
    }

    /// The raw text of the column at `index`, or nil for SQL NULL. `index` must be a valid column index.
    public subscript(_ index: Int) -> String? {
        precondition(columns.indices.contains(index), "column index \(index) out of range 0..<\(columns.count)")
        return values[values.startIndex + index]
    }

    /// Decodes the column at `index`.
    ///
    /// - Parameters:
    ///   - type: the Swift type; use an `Optional` to accept SQL NULL as nil.
    ///   - index: the column's position, from 0.
    /// - Throws: ``PostgresError`` with code `.decoding`, naming the column, its index and `type`, when the
    ///   index is out of range, the value is NULL and `type` is not optional, or the text does not parse.
    public func decode<T: PostgresDecodable>(_ type: T.Type, at index: Int) throws -> T {
        guard columns.indices.contains(index) else {
            throw PostgresError(
                code: .decoding,
                message: "cannot decode column index \(index) as \(T.self): the row has \(columns.count) columns "
                    + "(\(columns.joined(separator: ", ")))"
            )
        }
        let column = "column \"\(columns[index])\" (index \(index))"
        guard let text = self[index] else {
            if let nullable = T.self as? any PostgresNullable.Type, let null = nullable.postgresNull as? T {
                return null
            }
            throw PostgresError(
                code: .decoding,
                message: "cannot decode \(column) as \(T.self): the value is NULL; decode \(T.self)? to accept NULL"
            )
        }
        do {
            return try T(postgresText: text)
        } catch {
            throw PostgresError(code: .decoding, message: "cannot decode \(column) as \(T.self): \(error)")
        }
    }

    /// Decodes the first column named `column`.
    ///
    /// - Parameters:
    ///   - type: the Swift type; use an `Optional` to accept SQL NULL as nil.
    ///   - column: the column's name as the statement returns it (unquoted names are lower case).
    /// - Throws: ``PostgresError`` with code `.decoding` when there is no such column, or as
    ///   ``decode(_:at:)`` does.
    public func decode<T: PostgresDecodable>(_ type: T.Type, column: String) throws -> T {
        guard let index = columns.firstIndex(of: column) else {
            throw PostgresError(
                code: .decoding,
                message: "cannot decode column \"\(column)\" as \(T.self): the row has no such column "
                    + "(columns: \(columns.joined(separator: ", ")))"
            )
        }
        return try decode(type, at: index)
    }
}
