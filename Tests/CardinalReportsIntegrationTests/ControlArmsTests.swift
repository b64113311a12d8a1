import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite struct ControlArmsTests {
    /// c1 counts "purchase" within one day of exposure.
    private static func oneDayPurchase() throws -> CampaignSettingsUpdate {
        CampaignSettingsUpdate(conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "1d")))
    }

    @Test("A conversion one second inside the window counts, one second outside or before exposure does not")
    func windowBoundaries() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", try Self.oneDayPurchase())
        try scenario.write([
            // u1 (v1): exposed day 10 01:00, buys day 11 00:59:59 = exposure + 1 day − 1 s: converts.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "05:00"), user: "u1"),  // a later impression moves nothing
            event(.conversion, at: scenario.time(11, "00:59:59"), user: "u1", conversion: "purchase"),
            // u2 (v1): exposed day 10 01:00, buys day 11 01:00:01 = exposure + 1 day + 1 s: does not.
            event(.impression, at: scenario.time(10, "01:00"), user: "u2"),
            event(.conversion, at: scenario.time(11, "01:00:01"), user: "u2", conversion: "purchase"),
            // u3 (control): bought one second before the control impression: does not convert.
            event(.conversion, at: scenario.time(10, "00:59:59"), user: "u3", conversion: "purchase"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u3", variant: nil, control: true),
            // u4 (control): buys at the very second of exposure: converts (at or after exposure).
            event(.impression, at: scenario.time(10, "02:00"), user: "u4", variant: nil, control: true),
            event(.conversion, at: scenario.time(10, "02:00"), user: "u4", conversion: "purchase"),
        ])
        let arms = try ControlArmsQuery(connection: scenario.connection)
            .run(scenario.scope(10, 11), asOf: scenario.time(20, "00:00"))
        // Control first: {u3, u4}, u4 converted; then v1: {u1, u2}, u1 converted.
        #expect(arms.map(\.control) == [true, false])
        #expect(arms.map(\.variantID) == [nil, "v1"])
        #expect(arms.map(\.users) == [2, 2])
        #expect(arms.map(\.converters) == [1, 1])
        #expect(arms.map(\.conversionEvent) == ["purchase", "purchase"])
        #expect(arms.map(\.window.seconds) == [86_400, 86_400])
    }

    @Test("Immature users, users in two arms, users first exposed before the range and test users are left out")
    func exclusions() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", try Self.oneDayPurchase())
        try scenario.write([
            // Range: Tokyo days 10…11 = [day 9 15:00, day 11 15:00) UTC. as_of = day 12 00:00 UTC.
            // u1 (v1): exposed day 10 23:00, + 1 day = day 11 23:00 ≤ as_of: matured.
            event(.impression, at: scenario.time(10, "23:00"), user: "u1"),
            // u2 (v1): exposed day 11 00:00:01, + 1 day = day 12 00:00:01 > as_of: immature, exposed only.
            event(.impression, at: scenario.time(11, "00:00:01"), user: "u2"),
            // u3: an impression of v1 and a control impression: in two arms, left out of both.
            event(.impression, at: scenario.time(10, "01:00"), user: "u3"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u3", variant: nil, control: true),
            // u4 (control): exposed day 10 03:00: matured.
            event(.impression, at: scenario.time(10, "03:00"), user: "u4", variant: nil, control: true),
            // u5 (v1): first exposed on day 5, before the range: an earlier cohort, not counted.
            event(.impression, at: scenario.time(5, "03:00"), user: "u5"),
            event(.impression, at: scenario.time(10, "03:00"), user: "u5"),
            // u6 (v1): a test user.
            event(.impression, at: scenario.time(10, "03:00"), user: "u6", test: true),
        ])
        let arms = try ControlArmsQuery(connection: scenario.connection)
            .run(scenario.scope(10, 11), asOf: scenario.time(12, "00:00"))
        #expect(arms.map(\.variantID) == [nil, "v1"])
        // Control: u4. v1: u1 matured, u2 exposed but immature.
        #expect(arms.map(\.users) == [1, 1])
        #expect(arms.map(\.exposedUsers) == [1, 2])
        #expect(arms.map(\.converters) == [0, 0])
        #expect(arms.map(\.usersInSeveralArms) == [1, 1])
    }

    @Test("A conversion on another device of the same user counts; conversion and window can be overridden")
    func userKeyAndOverrides() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", try Self.oneDayPurchase())
        try scenario.write([
            // u1 (v1): seen on d1, buys on d2 four hours later: converts (same user_key).
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", device: "d1"),
            event(.conversion, at: scenario.time(10, "05:00"), user: "u1", device: "d2", conversion: "purchase"),
            // u2 (control): signs up an hour after the control impression: a signup, not a purchase.
            event(.impression, at: scenario.time(10, "01:00"), user: "u2", variant: nil, control: true),
            event(.conversion, at: scenario.time(10, "02:00"), user: "u2", conversion: "signup"),
            // u3 (v1): buys two days after exposure: outside 1 day, inside 3 days.
            event(.impression, at: scenario.time(10, "01:00"), user: "u3"),
            event(.conversion, at: scenario.time(12, "01:00"), user: "u3", conversion: "purchase"),
        ])
        let query = ControlArmsQuery(connection: scenario.connection)
        let asOf = scenario.time(20, "00:00")
        let settings = try query.run(scenario.scope(10, 11), asOf: asOf)
        #expect(settings.map(\.users) == [1, 2])
        #expect(settings.map(\.converters) == [0, 1])
        let signup = try query.run(scenario.scope(10, 11), asOf: asOf, conversion: "signup")
        #expect(signup.map(\.conversionEvent) == ["signup", "signup"])
        #expect(signup.map(\.converters) == [1, 0])
        let threeDays = try query.run(scenario.scope(10, 11), asOf: asOf, window: try ConversionWindow(parsing: "3d"))
        #expect(threeDays.map(\.window.seconds) == [259_200, 259_200])
        #expect(threeDays.map(\.converters) == [0, 2])
    }

    @Test("Push arms are exposed at the send, and a campaign without a conversion event has no converters")
    func pushAndNoConversion() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.send, .push, at: scenario.time(10, "01:00"), user: "u1", campaign: "p1", variant: "v1"),
            event(.send, .push, at: scenario.time(10, "01:00"), user: "u2", campaign: "p1", variant: nil, control: true),
        ])
        let arms = try ControlArmsQuery(connection: scenario.connection)
            .run(scenario.scope(10, 10), asOf: scenario.time(20, "00:00"))
        #expect(arms.map(\.campaignID) == ["p1", "p1"])
        #expect(arms.map(\.users) == [1, 1])
        #expect(arms.map(\.converters) == [nil, nil])
        #expect(arms.map(\.conversionEvent) == [nil, nil])
        // No settings: the default window of 3 days.
        #expect(arms.first?.window == ConversionWindow.standard)
    }

    @Test("The control report compares every variant with control, adjusts by Holm, and checks the split")
    func controlReport() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var update = try Self.oneDayPurchase()
        update.expectedSplit = .set(try ExpectedSplit(parsing: "control=1,v1=1,v2=1"))
        try scenario.settings("c1", update)
        // 30 users per arm; 6 of control, 12 of v1 and 9 of v2 buy an hour after exposure.
        var events: [Event] = []
        for (arm, buyers) in [("control", 6), ("v1", 12), ("v2", 9)] {
            for index in 0..<30 {
                let user = "\(arm)-\(index)"
                let isControl = arm == "control"
                events.append(event(.impression, at: scenario.time(10, "01:00"), user: user,
                                    variant: isControl ? nil : arm, control: isControl))
                if index < buyers {
                    events.append(event(.conversion, at: scenario.time(10, "02:00"), user: user, conversion: "purchase"))
                }
            }
        }
        try scenario.write(events)
        // With its split configured and one conversion event, the campaign's report needs neither the sends nor
        // the further conversion events: one report function call.
        let (report, calls) = try scenario.connection.transaction { connection in
            try connection.execute("set local track_functions = 'all'")
            let report = try ControlReport.run(
                session: scenario.session, scope: scenario.scope(10, 11), asOf: scenario.time(20, "00:00")
            )
            let calls = try connection.query(
                """
                select string_agg(funcname || ' ' || calls, ', ' order by funcname)
                from pg_catalog.pg_stat_xact_user_functions
                where schemaname = 'cardinal'
                  -- control_arm_conversions is a SQL function the planner inlines: the call shows as its body's.
                  and funcname in ('control_arms', 'control_arm_conversions_from_exposures', 'send_arms')
                """
            ).first?.decode(String?.self, at: 0)
            return (report, calls)
        }
        #expect(calls == "control_arms 1")
        #expect(report.campaigns.count == 1)
        let campaign = try #require(report.campaigns.first)
        #expect(campaign.arms.map(\.splitName) == ["control", "v1", "v2"])
        #expect(campaign.arms.map(\.users) == [30, 30, 30])
        #expect(campaign.arms.map(\.converters) == [6, 12, 9])
        #expect(campaign.arms.map(\.rate) == [0.2, 0.4, 0.3])
        let expected = ControlStatistics.compareAll(
            variants: [ArmCounts(users: 30, converters: 12), ArmCounts(users: 30, converters: 9)],
            control: ArmCounts(users: 30, converters: 6)
        )
        #expect(campaign.comparisons.map(\.variantID) == ["v1", "v2"])
        #expect(campaign.comparisons.map(\.statistics) == expected)
        #expect(expected.allSatisfy { $0.pValueHolm != nil })
        // 30/30/30 against 1:1:1: a perfect fit.
        let check = try #require(campaign.sampleRatio.check)
        #expect(check.chi2 == 0)
        #expect(check.degreesOfFreedom == 2)
        #expect(!check.mismatch)
        #expect(report.sampleRatioFindings.isEmpty)
    }

    /// An event of step `step` of canvas `cv1`.
    private func canvasEvent(
        _ type: EventType, at time: Date, user: String, step: String, variant: String? = "v1", control: Bool = false
    ) -> Event {
        var canvasEvent = event(type, at: time, user: user, variant: variant, control: control)
        canvasEvent.source = .canvas(id: "cv1", stepID: step)
        return canvasEvent
    }

    /// Canvas cv1 with purchase, then signup, in a one-day window (settings keyed by the canvas id, 0034), and a
    /// campaign c1 beside it:
    /// - u1 (v1): impressions of steps s1 at day 10 01:00 and s2 at 03:00, buys at 05:00: one user, converted.
    /// - u2 (v1): impression of step s2 at day 10 02:00, signs up at 04:00, never buys.
    /// - u3 (control): control impression of step s1 at day 10 01:00, buys at 12:00: converted.
    /// - u4 (control): control impression of step s1 at day 10 01:00, buys on day 12: outside the day.
    /// - u5 (c1, v1): an impression of the campaign, which the canvas report never sees.
    private func canvasScenario() throws -> ReportScenario {
        let scenario = try ReportScenario()
        try scenario.settings("cv1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "1d")),
            furtherConversionEvents: .set(["signup"])
        ))
        try scenario.write([
            canvasEvent(.impression, at: scenario.time(10, "01:00"), user: "u1", step: "s1"),
            canvasEvent(.impression, at: scenario.time(10, "03:00"), user: "u1", step: "s2"),
            event(.conversion, at: scenario.time(10, "05:00"), user: "u1", conversion: "purchase"),
            canvasEvent(.impression, at: scenario.time(10, "02:00"), user: "u2", step: "s2"),
            event(.conversion, at: scenario.time(10, "04:00"), user: "u2", conversion: "signup"),
            canvasEvent(.impression, at: scenario.time(10, "01:00"), user: "u3", step: "s1", variant: nil, control: true),
            event(.conversion, at: scenario.time(10, "12:00"), user: "u3", conversion: "purchase"),
            canvasEvent(.impression, at: scenario.time(10, "01:00"), user: "u4", step: "s1", variant: nil, control: true),
            event(.conversion, at: scenario.time(12, "00:00"), user: "u4", conversion: "purchase"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u5"),
        ])
        return scenario
    }

    @Test("A canvas's arms gather its users over all its steps, with the settings keyed by the canvas id")
    func canvasArms() throws {
        let scenario = try canvasScenario()
        defer { scenario.drop() }
        var scope = scenario.scope(10, 11)
        scope.canvas = "cv1"
        let asOf = scenario.time(20, "00:00")
        let arms = try ControlArmsQuery(connection: scenario.connection).run(scope, asOf: asOf)
        // Control {u3, u4}, u3 bought within the day; v1 {u1, u2}, u1 bought. u1 counts once for two steps.
        #expect(arms.map(\.campaignID) == ["cv1", "cv1"])
        #expect(arms.map(\.isCanvas) == [true, true])
        #expect(arms.map(\.variantID) == [nil, "v1"])
        #expect(arms.map(\.users) == [2, 2])
        #expect(arms.map(\.converters) == [1, 1])
        #expect(arms.map(\.window.seconds) == [86_400, 86_400])
        // The canvas row says so in SQL: no campaign_id, the canvas in canvas_id.
        let sql = try scenario.connection.query(
            "select count(*) filter (where campaign_id is null and canvas_id = 'cv1'), count(*) "
                + "from cardinal.control_arms('shop', null, $1, $2, $3, canvas => 'cv1')",
            [scenario.day(10), scenario.day(11), asOf]
        )
        #expect(try sql[0].decode(Int.self, at: 0) == 2)
        #expect(try sql[0].decode(Int.self, at: 1) == 2)
        // Campaigns only without the canvas argument: c1's v1 arm with u5.
        let campaigns = try ControlArmsQuery(connection: scenario.connection).run(scenario.scope(10, 11), asOf: asOf)
        #expect(campaigns.map(\.campaignID) == ["c1"])
        #expect(campaigns.map(\.isCanvas) == [false])
        // Signup, the canvas's second event: nobody in control, u2 in v1.
        let further = try ControlArmConversionsQuery(connection: scenario.connection).run(scope, asOf: asOf)
        #expect(further.map(\.ordinal) == [2, 2])
        #expect(further.map(\.conversionEvent) == ["signup", "signup"])
        #expect(further.map(\.campaignID) == ["cv1", "cv1"])
        #expect(further.map(\.users) == [2, 2])
        #expect(further.map(\.converters) == [0, 1])
    }

    @Test("A campaign and a canvas together are refused with SQLSTATE 22023")
    func campaignAndCanvasRefused() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        for function in ["control_arms", "control_arms_reference", "control_arm_conversions"] {
            let error = #expect(throws: PostgresError.self, "\(function)") {
                try scenario.connection.query(
                    "select * from cardinal.\(function)('shop', 'c1', $1, $1, canvas => 'cv1')", [scenario.day(10)]
                )
            }
            #expect(error?.sqlState?.rawValue == "22023", "\(function)")
        }
    }

    @Test("The control report of a canvas compares each conversion event, the further ones as one Holm family")
    func canvasReport() throws {
        let scenario = try canvasScenario()
        defer { scenario.drop() }
        var scope = scenario.scope(10, 11)
        scope.canvas = "cv1"
        let report = try ControlReport.run(session: scenario.session, scope: scope, asOf: scenario.time(20, "00:00"))
        let canvas = try #require(report.campaigns.first)
        #expect(report.campaigns.count == 1)
        #expect(canvas.isCanvas)
        #expect(canvas.campaignID == "cv1")
        #expect(canvas.conversionEvent == "purchase")
        #expect(canvas.arms.map(\.converters) == [1, 1])
        let signup = try #require(canvas.furtherConversions.first)
        #expect(canvas.furtherConversions.count == 1)
        #expect(signup.ordinal == 2)
        #expect(signup.conversionEvent == "signup")
        #expect(signup.arms.map(\.users) == [2, 2])
        #expect(signup.arms.map(\.converters) == [0, 1])
        #expect(signup.arms.map(\.rate) == [0, 0.5])
        // One variant, one further event: a family of one, so Holm leaves the p-value as it is.
        let comparison = try #require(signup.comparisons.first)
        #expect(comparison.variantID == "v1")
        #expect(comparison.statistics.difference == 0.5)
        #expect(comparison.statistics.pValueHolm == comparison.statistics.pValue)
        let json = try JSONValue.parse(report.render(.json))
        guard case .object(let document) = json, case .array(let campaigns)? = document["campaigns"],
              case .object(let first)? = campaigns.first, case .array(let conversions)? = first["conversions"],
              case .object(let conversion)? = conversions.first
        else {
            Issue.record("no canvas in \(json.compactText)")
            return
        }
        #expect(first["campaign_id"] == .null)
        #expect(first["canvas_id"] == .string("cv1"))
        #expect(conversion["conversion_event"] == .string("signup"))
        #expect(conversion["ordinal"] == .number("2"))
        // The table's id column is named for what it holds.
        let header = report.render(.table).split(separator: "\n").first ?? ""
        #expect(header.contains("canvas_id") && !header.contains("campaign_id"), "\(header)")
    }
}
