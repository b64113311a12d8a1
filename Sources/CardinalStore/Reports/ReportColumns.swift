public import CardinalCore
import PostgresClient

/// The columns of one report's rows in order, and everything derived from them: the select list of the SQL
/// function, the decoding of its rows, the JSON members, and the insert of a stored run.
public struct ReportColumns<Row: Sendable>: Sendable {
    /// The columns in order: the SQL select list, the JSON members and the table columns all follow it.
    public let all: [ReportColumn<Row>]
    /// A row with every column still to be set; decoding starts from it.
    private let blank: Row

    init(_ all: [ReportColumn<Row>], blank: Row) {
        self.all = all
        self.blank = blank
    }

    /// The columns a stored run keeps, in order.
    public var stored: [ReportColumn<Row>] {
        all.filter { $0.storedName != nil }
    }

    /// The declaration of the SQL function `function`'s result for the contract test: every column's result name
    /// and type, in order.
    public func result(of function: String) -> SQLColumns {
        SQLColumns(.function, function, ordered: true, all.map { SQLColumn($0.resultName, $0.sqlType.sql) })
    }

    /// The declaration of the stored-run table `table` for the contract test: `run_id`, `position`, then the
    /// stored columns, in order.
    public func storedTable(_ table: String) -> SQLColumns {
        SQLColumns(
            .relation, table, ordered: true,
            [SQLColumn("run_id", "bigint"), SQLColumn("position", "integer")]
                + stored.map { SQLColumn($0.storedName ?? $0.resultName, $0.sqlType.sql) }
        )
    }

    /// `"app_name", "campaign_id", …`: the select list over the SQL function's result.
    var resultList: PostgresQuery {
        "\(identifiers: all.map(\.resultName))"
    }

    /// `"app_name", "campaign_id", …`: the select list over the stored-run table.
    var storedList: PostgresQuery {
        "\(identifiers: storedNames)"
    }

    private var storedNames: [String] {
        stored.compactMap(\.storedName)
    }

    /// A row of the SQL function's result, each column read by its result name.
    func decodeResult(_ result: PostgresRow) throws -> Row {
        var row = blank
        for column in all {
            try column.decode(into: &row, from: result, column: column.resultName)
        }
        return row
    }

    /// A row of the stored-run table, each column read by its stored name; columns that are not stored keep
    /// the blank row's value.
    func decodeStored(_ result: PostgresRow) throws -> Row {
        var row = blank
        for column in stored {
            try column.decode(into: &row, from: result, column: column.storedName ?? column.resultName)
        }
        return row
    }

    /// The row's members of the JSON output, in order; the breakdown column is named after `breakdown`, and
    /// left out without one.
    public func jsonMembers(of row: Row, breakdown: ReportBreakdown?) -> [(String, JSONValue)] {
        all.compactMap { column in
            guard column.inJSON, let name = shownName(of: column, breakdown: breakdown) else {
                return nil
            }
            return (name, column.json(row))
        }
    }

    /// The name a column is shown under: its own, or for the breakdown column the breakdown's (`day`); `nil`
    /// for the breakdown column without a breakdown.
    public func shownName(of column: ReportColumn<Row>, breakdown: ReportBreakdown?) -> String? {
        column.kind == .breakdown ? breakdown?.rawValue : column.name
    }

    /// The insert of `rows` into the stored-run table `table` under run `runID` (``StoredRunInsert``), the
    /// JSON keys being the stored column names.
    func insertStatement(into table: PostgresQuery, runID: Int64, rows: [Row]) -> PostgresQuery {
        let insert = StoredRunInsert(columns: stored.map {
            StoredRunInsert.Column(name: $0.storedName ?? $0.resultName, sqlType: $0.sqlType)
        })
        return insert.statement(into: table, runID: runID, rows: rows.map { row in stored.map { $0.json(row) } })
    }
}
