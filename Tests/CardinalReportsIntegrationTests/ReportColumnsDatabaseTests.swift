import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The column lists (``UniqueImpressionsRow/columns``, ``AnomalyFinding/columns``,
/// ``ControlReportRecord/storedColumnNames``) against the database they describe: the SQL functions' results and
/// the stored-run tables, whose names cannot change in landed migrations.
@Suite struct ReportColumnsDatabaseTests {
    /// The columns of table `cardinal.<table>`, in order.
    private func tableColumns(_ scenario: ReportScenario, _ table: String) throws -> [String] {
        try scenario.connection.query(
            """
            select column_name from information_schema.columns
            where table_schema = 'cardinal' and table_name = $1 order by ordinal_position
            """,
            [table]
        ).map { try $0.decode(String.self, at: 0) }
    }

    @Test("The column list names every result column of cardinal.unique_impressions, in order")
    func resultColumns() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let result = try scenario.connection.query(
            "select * from cardinal.unique_impressions(app => 'shop', from_date => $1, to_date => $2, by => 'day')",
            [scenario.day(10), scenario.day(10)]
        )
        #expect(result.columns == UniqueImpressionsRow.columns.all.map(\.resultName))
    }

    @Test("report_unique_impressions has run_id, position, then the column list's stored columns")
    func storedColumns() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let names = try tableColumns(scenario, "report_unique_impressions")
        #expect(names == ["run_id", "position"] + UniqueImpressionsRow.columns.stored.compactMap(\.storedName))
    }

    @Test("A stored run reads back as the unique-impressions rows the report computed")
    func storedRowsReadBack() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.click, at: scenario.time(10, "01:01"), user: "u1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u2"),
            event(.send, .push, at: scenario.time(10, "01:00"), user: "u1", campaign: "p1", variant: nil),
        ])
        let run = try ScheduledReportRun.perform(
            session: scenario.session, scope: scenario.scope(10, 11), asOf: scenario.time(20, "00:00")
        )
        #expect(run.uniqueImpressions.rows.count == 2)
        #expect(try scenario.session.runs.uniqueImpressions(runID: run.runID) == run.uniqueImpressions.rows)
    }

    @Test("The anomalies column list names every result column of cardinal.anomalies and of report_anomalies")
    func anomaliesColumns() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let result = try scenario.connection.query(
            "select * from cardinal.anomalies(app => 'shop', from_date => $1, to_date => $2)",
            [scenario.day(10), scenario.day(10)]
        )
        #expect(result.columns == AnomalyFinding.columns.all.map(\.resultName))
        let stored = try tableColumns(scenario, "report_anomalies")
        #expect(stored == ["run_id", "position"] + AnomalyFinding.columns.stored.compactMap(\.storedName))
    }

    @Test("report_control has run_id, position, then the control record's stored columns, in order")
    func controlStoredColumns() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let names = try tableColumns(scenario, "report_control")
        #expect(names == ["run_id", "position"] + ControlReportRecord.storedColumnNames)
    }

    @Test("A stored run reads back as the findings the anomalies report computed")
    func storedFindingsReadBack() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.dismissal, at: scenario.time(10, "01:00"), user: "u1"),
            event(.click, at: scenario.time(10, "01:00"), user: "u2"),
        ])
        let run = try ScheduledReportRun.perform(
            session: scenario.session, scope: scenario.scope(10, 11), asOf: scenario.time(20, "00:00")
        )
        #expect(!run.anomalies.findings.isEmpty)
        #expect(try scenario.session.runs.anomalies(runID: run.runID) == run.anomalies.findings)
    }
}
