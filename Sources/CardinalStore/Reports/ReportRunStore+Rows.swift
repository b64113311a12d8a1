import PostgresClient

/// The result rows of a run go to the database as one JSON array per table and are expanded there by
/// `jsonb_to_recordset`: one statement per table however many rows, with every value typed by the
/// column list (``StoredRunInsert``). The JSON keys are the table's column names. Each table's columns come
/// from one list: ``UniqueImpressionsRow/columns``, ``AnomalyFinding/columns``, ``ControlReportRecord/storedColumns``.
extension ReportRunStore {
    static func insert(runID: Int64, _ rows: [UniqueImpressionsRow]) -> PostgresQuery {
        UniqueImpressionsRow.columns.insertStatement(into: UniqueImpressionsRow.storedColumns.objectName, runID: runID, rows: rows)
    }

    static func insert(runID: Int64, _ findings: [AnomalyFinding]) -> PostgresQuery {
        AnomalyFinding.columns.insertStatement(into: AnomalyFinding.storedColumns.objectName, runID: runID, rows: findings)
    }

    static func insert(runID: Int64, _ records: [ControlReportRecord]) -> PostgresQuery {
        ControlReportRecord.insertStatement(runID: runID, records)
    }
}
