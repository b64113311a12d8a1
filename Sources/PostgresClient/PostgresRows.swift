/// The rows a statement returned, copied out of libpq: a random-access collection of ``PostgresRow``.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// The column names, in order.
    public let columns: [String]
    /// Rows inserted, updated, deleted or selected, as the command tag reports it; 0 when it reports none.
    public let affectedRows: Int
    /// All values, row after row; nil is SQL NULL.
    private let values: [String?]
    private let rowCount: Int

    init(columns: [String], values: [String?], rowCount: Int, affectedRows: Int) {
        precondition(values.count == columns.count * rowCount, "values must fill rowCount rows of every column")
        self.columns = columns
        self.values = values
        self.rowCount = rowCount
        self.affectedRows = affectedRows
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of rows.
    public var endIndex: Int { rowCount }

    /// The row at `position`, which must be a valid index.
    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row index \(position) out of range 0..<\(rowCount)")
        let start = position * columns.count
        return PostgresRow(columns: columns, values: values[start..<start + columns.count])
    }
}
