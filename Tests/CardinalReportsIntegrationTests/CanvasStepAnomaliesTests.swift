import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// Anomalies by canvas step: a canvas step's findings are its own and name the canvas and the step,
/// while the canvas's arms are judged over all its steps, as Braze defines them.
@Suite struct CanvasStepAnomaliesTests {
    /// `event(…)` moved from campaign c1 to a step of a canvas.
    private func stepEvent(_ event: Event, canvas: String = "onboarding", step: String) -> Event {
        var moved = event
        moved.source = .canvas(id: canvas, stepID: step)
        return moved
    }

    /// `kind campaign canvas step evidence` per row of `function` (anomalies or anomalies_reference).
    private func rows(_ function: String, _ scenario: ReportScenario, canvas: String? = nil) throws -> [String] {
        try scenario.connection.query(
            """
            select concat_ws(' ', kind, coalesce(campaign_id, '-'), coalesce(canvas_id, '-'),
                             coalesce(canvas_step_id, '-'), evidence::text)
            from cardinal.\(function)(app => 'shop', from_date => $1, to_date => $2, canvas => $3)
            """,
            [scenario.day(10), scenario.day(10), canvas]
        ).map { try $0.decode(String.self, at: 0) }
    }

    @Test("Clicks without impressions on two canvas steps and a campaign are three findings, each naming its source")
    func clicksWithoutImpressionPerStep() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // In-app messages on day 10 (01:00 UTC is 10:00 in Tokyo, report day 10).
        func click(_ clock: String, _ user: String) -> Event {
            event(.click, .inAppMessage, at: scenario.time(10, clock), user: user)
        }
        func impression(_ clock: String, _ user: String) -> Event {
            event(.impression, .inAppMessage, at: scenario.time(10, clock), user: user)
        }
        try scenario.write([
            // Step welcome: u1 clicks without any impression, u2 sees then clicks: 1 of 2 users, 1 of 2 clicks.
            stepEvent(click("01:00", "u1"), step: "welcome"),
            stepEvent(impression("01:00", "u2"), step: "welcome"),
            stepEvent(click("01:01", "u2"), step: "welcome"),
            // Step reminder: u2 clicks having seen only welcome's message (an impression is the step's), u5
            // clicks twice without any impression, u3 sees then clicks twice: 2 of 3 users (u2, u5), 3 of 5
            // clicks.
            stepEvent(click("02:00", "u2"), step: "reminder"),
            stepEvent(click("02:00", "u5"), step: "reminder"),
            stepEvent(click("02:30", "u5"), step: "reminder"),
            stepEvent(impression("01:00", "u3"), step: "reminder"),
            stepEvent(click("01:05", "u3"), step: "reminder"),
            stepEvent(click("01:06", "u3"), step: "reminder"),
            // Campaign c1: u1 clicks without an impression of c1, u6 sees then clicks: 1 of 2 users, 1 of 2
            // clicks.
            click("01:00", "u1"),
            impression("01:00", "u6"),
            click("01:01", "u6"),
        ])
        let found = try AnomaliesReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(30, "00:00")
        ).findings.filter { $0.kind == .clickWithoutImpression }
        // Campaigns first, then the canvas's steps by id.
        #expect(found.map(\.campaignID) == ["c1", nil, nil])
        #expect(found.map(\.canvasID) == [nil, "onboarding", "onboarding"])
        #expect(found.map(\.canvasStepID) == [nil, "reminder", "welcome"])
        #expect(found.map { $0.evidence["users_without_impression"] } == [1, 2, 1])
        #expect(found.map { $0.evidence["users"] } == [2, 3, 2])
        #expect(found.map { $0.evidence["events_without_impression"] } == [1, 3, 1])
        #expect(found.map { $0.evidence["events"] } == [2, 5, 2])
        // Shares 1/2, 2/3 and 1/2: all at least 5 %.
        #expect(found.allSatisfy { $0.severity == .critical })
        #expect(found.allSatisfy { $0.channel == "in_app_message" })

        // The reference over the raw events finds the same, and the canvas argument keeps the canvas's steps.
        let state = try rows("anomalies", scenario)
        #expect(state.count == 3)
        #expect(try rows("anomalies_reference", scenario) == state)
        #expect(try rows("anomalies", scenario, canvas: "onboarding") == Array(state.dropFirst()))
        #expect(try rows("anomalies_reference", scenario, canvas: "onboarding") == Array(state.dropFirst()))
        #expect(try rows("anomalies", scenario, canvas: "winback").isEmpty)
    }

    @Test("A user shown a variant at one step and the control at another is in several arms of the canvas")
    func armsAreTheCanvas() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            // u1 sees v1 at welcome and logs a control impression at reminder: one user, two arms of the canvas.
            stepEvent(event(.impression, at: scenario.time(10, "01:00"), user: "u1"), step: "welcome"),
            stepEvent(event(.impression, at: scenario.time(10, "02:00"), user: "u1", variant: nil, control: true),
                      step: "reminder"),
            // u2 sees v1 at welcome only; u3 sees v1 at both steps: one arm each.
            stepEvent(event(.impression, at: scenario.time(10, "01:00"), user: "u2"), step: "welcome"),
            stepEvent(event(.impression, at: scenario.time(10, "01:00"), user: "u3"), step: "welcome"),
            stepEvent(event(.impression, at: scenario.time(10, "02:00"), user: "u3"), step: "reminder"),
            // Another canvas showing u1 the control is another assignment: no finding there.
            stepEvent(event(.impression, at: scenario.time(10, "03:00"), user: "u1", variant: nil, control: true),
                      canvas: "winback", step: "welcome"),
        ])
        let found = try AnomaliesReport.run(
            session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(30, "00:00")
        ).findings.filter { $0.kind == .usersInSeveralArms }
        // Each step of onboarding reports u1 among the users it exposed: reminder u1 and u3, welcome u1, u2, u3.
        #expect(found.map(\.canvasID) == ["onboarding", "onboarding"])
        #expect(found.map(\.canvasStepID) == ["reminder", "welcome"])
        #expect(found.map { $0.evidence["users"] } == [1, 1])
        #expect(found.map { $0.evidence["exposed_users"] } == [2, 3])
        // 1/2 and 1/3 of the exposed users: critical.
        #expect(found.allSatisfy { $0.severity == .critical })
        #expect(try rows("anomalies_reference", scenario) == rows("anomalies", scenario))
    }

    @Test("report anomalies narrowed to a canvas has its steps' findings only")
    func canvasScope() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            stepEvent(event(.click, .inAppMessage, at: scenario.time(10, "01:00"), user: "u1"), step: "welcome"),
            event(.click, .inAppMessage, at: scenario.time(10, "01:00"), user: "u1"),
        ])
        var scope = scenario.scope(10, 10)
        scope.canvas = "onboarding"
        let report = try AnomaliesReport.run(session: scenario.session, scope: scope, asOf: scenario.time(30, "00:00"))
        #expect(report.findings.map(\.canvasStepID) == ["welcome"])
        #expect(report.findings.map(\.kind) == [.clickWithoutImpression])
    }

    @Test("10 control users against 40 in v1 over a canvas's steps, on its configured 1:1 split, is the canvas's sample_ratio_mismatch")
    func canvasSampleRatioMismatch() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // A canvas's settings are the campaign settings row keyed by its id.
        try scenario.settings("onboarding", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), expectedSplit: .set(try ExpectedSplit(parsing: "control=1,v1=1"))
        ))
        var events: [Event] = []
        // v1's 40 users seen on two steps (20 each), the control's 10 on one: arms are the whole canvas's.
        for index in 0..<40 {
            events.append(stepEvent(event(.impression, at: scenario.time(10, "01:00"), user: "v\(index)"),
                                    step: index % 2 == 0 ? "welcome" : "reminder"))
        }
        for index in 0..<10 {
            events.append(stepEvent(event(.impression, at: scenario.time(10, "01:00"), user: "c\(index)", variant: nil,
                                          control: true), step: "welcome"))
        }
        try scenario.write(events)
        var scope = scenario.scope(10, 10)
        scope.canvas = "onboarding"
        let found = try AnomaliesReport.run(session: scenario.session, scope: scope, asOf: scenario.time(30, "00:00"))
            .findings.filter { $0.kind == .sampleRatioMismatch }
        let finding = try #require(found.first)
        #expect(found.count == 1)
        #expect(finding.campaignID == nil)
        #expect(finding.canvasID == "onboarding")
        #expect(finding.canvasStepID == nil)
        // Expected 25 and 25: chi² = 15²/25 + 15²/25 = 18.
        #expect(finding.evidence["chi2"] == 18)
        #expect(finding.evidence["users.control"] == 10)
        #expect(finding.evidence["users.v1"] == 40)
        #expect(finding.evidence["split_configured"] == 1)
    }
}
