import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The fold writes a per-user state row only when its events change it: a row version it did not write
/// keeps its `xmin`. Times are UTC before 15:00, so each lies on the Tokyo report day of the same number.
@Suite struct FoldUnchangedRowsTests {
    private func fold(_ scenario: ReportScenario) throws {
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)
    }

    /// The row versions (`xmin`) of u1's rows the fold may leave alone, by table: its exposure to c1, its receipt
    /// of c1 and its content-card day row.
    private func versions(_ scenario: ReportScenario) throws -> [String: String] {
        let rows = try scenario.connection.query(
            """
            select 'exposure', xmin::text from cardinal.report_control_exposures where user_key = 'u1'
            union all
            select 'receipt', xmin::text from cardinal.report_campaign_receipts where user_key = 'u1'
            union all
            select 'user', xmin::text from cardinal.report_user_state where user_key = 'u1'
            """
        )
        return try Dictionary(
            rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) },
            uniquingKeysWith: { first, _ in first }
        )
    }

    private func text(_ scenario: ReportScenario, _ sql: String) throws -> String {
        try scenario.connection.query(sql, []).first?.decode(String?.self, at: 0) ?? ""
    }

    @Test("A later impression on a day the user already has rewrites none of the user's exposure, receipt or day rows")
    func repeatedImpressionLeavesRowsAlone() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1")])
        try fold(scenario)
        let before = try versions(scenario)
        #expect(before.keys.sorted() == ["exposure", "receipt", "user"])

        try scenario.write([event(.impression, at: scenario.time(10, "02:00"), user: "u1")])
        try fold(scenario)
        #expect(try versions(scenario) == before)
        // The fold did fold it: the day's impression count is 2.
        #expect(try text(scenario, "select sum(impressions)::text from cardinal.report_daily_counts") == "2")
    }

    @Test("An impression on a new day rewrites the user's day row and receipt, and an earlier one its exposure too")
    func changingImpressionsRewriteTheirRows() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1")])
        try fold(scenario)
        let first = try versions(scenario)

        // Day 11: a new impression day and a new receipt day; the first exposure is still day 10's.
        try scenario.write([event(.impression, at: scenario.time(11, "01:00"), user: "u1")])
        try fold(scenario)
        let second = try versions(scenario)
        #expect(second["exposure"] == first["exposure"])
        #expect(second["receipt"] != first["receipt"])
        #expect(second["user"] != first["user"])
        let days = "select impression_days::text from cardinal.report_user_state where user_key = 'u1'"
        #expect(try text(scenario, days) == "{\(scenario.day(10)),\(scenario.day(11))}")

        // Day 9, before the first: every row changes, the exposure's time included.
        try scenario.write([event(.impression, at: scenario.time(9, "01:00"), user: "u1")])
        try fold(scenario)
        let third = try versions(scenario)
        for table in ["exposure", "receipt", "user"] {
            #expect(third[table] != second[table], "\(table)")
        }
        let exposedAt = try scenario.connection.query(
            "select exposed_at from cardinal.report_control_exposures where user_key = 'u1'"
        ).first?.decode(Date.self, at: 0)
        #expect(exposedAt == scenario.time(9, "01:00"))
    }
}
