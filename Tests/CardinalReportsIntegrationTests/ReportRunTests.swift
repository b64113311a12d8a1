import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import TestSupport
import Testing

@Suite struct ReportRunTests {
    /// One campaign with a control arm that logs no control impressions, so that the run has rows in every
    /// table and a finding: 10 users see v1 (2 of them buy), control sends but never a control impression.
    private func seed(_ scenario: ReportScenario) throws {
        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        var events: [Event] = []
        for index in 0..<10 {
            events.append(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"))
            events.append(event(.send, at: scenario.time(10, "00:00"), user: "c\(index)", variant: nil, control: true))
        }
        events.append(event(.conversion, at: scenario.time(10, "02:00"), user: "v0", conversion: "purchase"))
        events.append(event(.conversion, at: scenario.time(10, "02:00"), user: "v1", conversion: "purchase"))
        try scenario.write(events)
    }

    @Test("A run stores its rows stamped with its id and the latest views show the newest succeeded run")
    func storesARun() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try seed(scenario)
        let scope = scenario.scope(10, 11)
        let first = try ScheduledReportRun.perform(session: scenario.session, scope: scope, asOf: scenario.time(20, "00:00"))
        let second = try ScheduledReportRun.perform(session: scenario.session, scope: scope, asOf: scenario.time(20, "00:00"))
        #expect(second.runID > first.runID)

        let run = try #require(try ReportRunStore(connection: scenario.connection).run(id: second.runID))
        #expect(run.status == .succeeded)
        #expect(run.finishedAt != nil)
        #expect(run.error == nil)
        // control_impressions_missing (10 v1 users, 10 control sends, no control impression).
        #expect(run.anomalyCount == second.anomalies.findings.count)
        #expect(second.anomalies.findings.map(\.kind) == [.controlImpressionsMissing])
        let parameters = try JSONValue.parse(run.parametersJSON)
        guard case .object(let object) = parameters else {
            Issue.record("parameters are not an object: \(run.parametersJSON)")
            return
        }
        #expect(object["from"] == .string(scenario.day(10).description))
        #expect(object["to"] == .string(scenario.day(11).description))
        #expect(object["app"] == .string("shop"))

        let connection = scenario.connection
        for table in ["report_unique_impressions", "report_anomalies", "report_control"] {
            let counts = try connection.query(
                "select run_id, count(*) from \(identifier: "cardinal", table) group by run_id order by run_id"
            ).map { try $0.decode(Int64.self, at: 1) }
            #expect(counts.count == 2, "\(table) holds both runs")
            #expect(Set(counts).count == 1, "\(table) holds the same rows for both runs")
        }
        let latest = try connection.query(
            "select distinct run_id from cardinal.latest_unique_impressions union select run_id from cardinal.latest_control"
        ).map { try $0.decode(Int64.self, at: 0) }
        #expect(latest == [second.runID])
        // The stored unique-impressions row is the report's: 10 impressions of c1/v1.
        let stored = try connection.query(
            "select campaign_id, variant_id, impressions, unique_impressions from cardinal.latest_unique_impressions"
        )
        #expect(stored.count == 1)
        #expect(try stored.first?.decode(Int64.self, at: 2) == 10)
        // The control rows: v1 with 10 users, 2 converters and a rate of 0.2 (no control arm was exposed).
        let control = try connection.query(
            "select variant_id, control, users, converters, rate, window_length = interval '3 days' from cardinal.latest_control"
        )
        #expect(control.count == 1)
        #expect(try control.first?.decode(String?.self, at: 0) == "v1")
        #expect(try control.first?.decode(Int.self, at: 2) == 10)
        #expect(try control.first?.decode(Int.self, at: 3) == 2)
        #expect(try control.first?.decode(Double.self, at: 4) == 0.2)
        #expect(try control.first?.decode(Bool.self, at: 5) == true)
        // v1 was shown but never sent, so the sends teach no split and none is configured: the check is
        // skipped, and the stored row says why.
        let srm = try connection.query("select srm_split_source, srm_skipped, srm_p_value from cardinal.latest_control")
        #expect(try srm.first?.decode(String?.self, at: 0) == "unknown")
        #expect(try srm.first?.decode(String?.self, at: 1)?.contains("expected split is unknown") == true)
        #expect(try srm.first?.decode(Double?.self, at: 2) == nil)
        let finding = try connection.query("select kind, severity, evidence ->> 'variant_impression_users' from cardinal.latest_anomalies")
        #expect(try finding.first?.decode(String.self, at: 0) == "control_impressions_missing")
        #expect(try finding.first?.decode(String.self, at: 2) == "10")
    }

    @Test("A failed run keeps no rows, records its error, and leaves the latest views on the previous run")
    func failedRun() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try seed(scenario)
        let good = try ScheduledReportRun.perform(
            session: scenario.session, scope: scenario.scope(10, 11), asOf: scenario.time(20, "00:00")
        )
        // A range that ends before it starts fails inside the SQL functions, after the run was recorded.
        #expect(throws: PostgresError.self) {
            try ScheduledReportRun.perform(
                session: scenario.session, scope: scenario.scope(11, 10), asOf: scenario.time(20, "00:00")
            )
        }
        let rows = try scenario.connection.query(
            "select run_id, status, error is not null, finished_at is not null from cardinal.report_runs order by run_id"
        )
        #expect(try rows.map { try $0.decode(String.self, at: 1) } == ["succeeded", "failed"])
        #expect(try rows.last?.decode(Bool.self, at: 2) == true)
        #expect(try rows.last?.decode(Bool.self, at: 3) == true)
        let failedID = try #require(try rows.last?.decode(Int64.self, at: 0))
        #expect(try scenario.connection.query(
            "select 1 from cardinal.report_control where run_id = $1", [failedID]).isEmpty)
        #expect(try scenario.connection.query("select run_id from cardinal.latest_report_run")
            .first?.decode(Int64.self, at: 0) == good.runID)
        // Finishing a run that is no longer running is refused.
        #expect(throws: ReportRunError.notRunning(failedID)) {
            try ReportRunStore(connection: scenario.connection)
                .finish(runID: failedID, uniqueImpressions: [], anomalies: [], control: [])
        }
    }

    @Test("The report migrations leave every object commented and every privilege as the role model says")
    func schemaChecks() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let checks = TestEnvironment.repositoryRoot.appendingPathComponent("SQL/checks")
        for name in ["uncommented_columns.sql", "uncommented_objects.sql", "privilege_drift.sql"] {
            let sql = try String(contentsOf: checks.appendingPathComponent(name), encoding: .utf8)
            let problems = try scenario.connection.query(sql, [])
            #expect(problems.isEmpty, "\(name): \(problems.map { $0[0] ?? "" })")
        }
    }
}
