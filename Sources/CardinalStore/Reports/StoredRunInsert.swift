import CardinalCore
import PostgresClient

/// The insert of a stored run's rows into one of its tables, `insert into <table> (run_id, position, …) select
/// <run>, r.position, r.… from jsonb_to_recordset(<rows>) as r (position integer, …)`: one statement however many
/// rows, every value typed by the column list, the rows going as one JSON array of objects keyed by column name.
struct StoredRunInsert {
    /// A column of the table after `run_id` and `position`.
    struct Column {
        let name: String
        let sqlType: PostgresQuery
    }

    /// The table's columns after `run_id` and `position`, in the order of each row's values.
    let columns: [Column]

    /// The statement storing `rows` (each row's values in the order of ``columns``) in `table` under run `runID`,
    /// positions counting from 1.
    func statement(into table: PostgresQuery, runID: Int64, rows: [[JSONValue]]) -> PostgresQuery {
        let names = columns.map(\.name)
        let recordColumns: [PostgresQuery] = columns.map { "\(identifier: $0.name) \($0.sqlType)" }
        return """
            insert into \(table) (run_id, position, \(identifiers: names))
            select \(runID), r.position, \(names.map { PostgresQuery.identifier(["r", $0]) }.joined(separator: ", "))
            from jsonb_to_recordset(\(json(rows))::jsonb) as r (
                position integer, \(recordColumns.joined(separator: ", ")))
            """
    }

    private func json(_ rows: [[JSONValue]]) -> PostgresJSON {
        let objects = rows.enumerated().map { offset, values in
            ReportJSON.object([("position", ReportJSON.integer(offset + 1))] + Array(zip(columns.map(\.name), values)))
        }
        return PostgresJSON(text: JSONValue.array(objects).compactText)
    }
}
