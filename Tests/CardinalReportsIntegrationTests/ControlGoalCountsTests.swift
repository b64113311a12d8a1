import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The control report's further conversion goals from counts per exposure day. As in
/// ``ControlExposureDaysTests`` the app reports in Asia/Tokyo (UTC+9): report day N runs from day N−1 15:00 UTC
/// to day N 15:00 UTC, so an event at day N 01:00 UTC is on Tokyo day N at 10:00, one at day N 16:00 UTC on
/// Tokyo day N+1 at 01:00. Campaign c1's primary goal is "purchase", its second "signup", within one day.
@Suite struct ControlGoalCountsTests {
    private static func goals(further: [String] = ["signup"]) throws -> CampaignSettingsUpdate {
        CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "1d")),
            furtherConversionEvents: .set(further)
        )
    }

    /// c1's further goal counts, one line per row: "exposure day, arm, second arm's day (- for none), ordinal,
    /// converters", the days as the scenario's day numbers.
    private func goalCounts(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s %s', d.exposed_day - $1::date,
                          case when d.control then 'control' else d.variant_key end,
                          case when d.second_arm_day = 'infinity' then '-'
                               else (d.second_arm_day - $1::date)::text end,
                          d.ordinal, d.converters)
            from cardinal.report_control_goal_days as d
            where d.campaign_id = 'c1'
            order by d.exposed_day, d.control desc, d.variant_key, d.second_arm_day, d.ordinal
            """,
            [scenario.day(0)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// How many rows of the goal counts differ from the aggregate of the per-user rows (both ways).
    private func countsDifferingFromRows(_ scenario: ReportScenario) throws -> Int64 {
        try scenario.connection.query(
            """
            select (select count(*) from (table cardinal.report_control_goal_days
                                          except table cardinal.report_control_goal_days_of_rows) as extra)
                   + (select count(*) from (table cardinal.report_control_goal_days_of_rows
                                            except table cardinal.report_control_goal_days) as missing)
            """
        ).first!.decode(Int64.self, at: 0)
    }

    /// A campaign's control_arm_conversions (from the state, or the reference over raw events) for the goals from
    /// `firstOrdinal` on, as "ordinal arm users converters" lines.
    private func conversions(
        _ scenario: ReportScenario, _ from: Int, _ to: Int, asOf: Date, window: String? = nil, reference: Bool = false,
        campaign: String = "c1", firstOrdinal: Int = 1
    ) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s', ordinal, case when control then 'control' else variant_id end, users,
                          converters)
            from cardinal.control_arm_conversions($1, $7, $2, $3, $4, false, $5, $6::interval,
                                                  first_ordinal => $8)
            """,
            [ReportScenario.appName, scenario.day(from), scenario.day(to), asOf, reference, window, campaign,
             firstOrdinal]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// Changes c1's further goals in place with one statement on campaign_conversion_events (an update, which
    /// `cardinal campaigns set --conversions` never makes: it deletes and inserts, as the test's last step does).
    private func goalChange(_ scenario: ReportScenario, _ statement: String) throws {
        try scenario.connection.execute(statement + " where campaign_id = 'c1'", [])
    }

    private func fold(_ scenario: ReportScenario) throws {
        _ = try ReportStateStore(connection: scenario.connection).fold()
    }

    @Test("The goal counts stay the aggregate of the per-user rows through folds, erasure, goal and window changes")
    func countsFollowTheRows() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", try Self.goals())
        try scenario.write([
            // u1 (v1): Tokyo day 10, signs up 4 hours later: a goal-2 converter within 1 day (not within 1 hour).
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            conversion("signup", at: scenario.time(10, "05:00"), user: "u1"),
            // u2 (control): Tokyo day 10, signed up before the exposure only.
            conversion("signup", at: scenario.time(9, "20:00"), user: "u2"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u2", variant: nil, control: true),
            // u3 (v1): Tokyo day 12 (01:00), signs up 18 hours later.
            event(.impression, at: scenario.time(11, "16:00"), user: "u3"),
            conversion("signup", at: scenario.time(12, "10:00"), user: "u3"),
        ])
        try fold(scenario)
        #expect(try goalCounts(scenario) == ["10 v1 - 2 1", "12 v1 - 2 1"])
        #expect(try countsDifferingFromRows(scenario) == 0)

        // Another second goal: nobody subscribed. Back to signup: u1 and u3 again.
        try goalChange(scenario, "update cardinal.campaign_conversion_events set conversion_event = 'subscribe'")
        #expect(try goalCounts(scenario) == [])
        try goalChange(scenario, "update cardinal.campaign_conversion_events set conversion_event = 'signup'")
        #expect(try goalCounts(scenario) == ["10 v1 - 2 1", "12 v1 - 2 1"])
        // Signup moved to the third goal: counted under ordinal 3 instead; and back.
        try goalChange(scenario, "update cardinal.campaign_conversion_events set ordinal = 3")
        #expect(try goalCounts(scenario) == ["10 v1 - 3 1", "12 v1 - 3 1"])
        try goalChange(scenario, "update cardinal.campaign_conversion_events set ordinal = 2")
        // A window of 1 hour changes no row: the recount leaves u1 (4 hours) and u3 (18 hours) out.
        try scenario.settings("c1", CampaignSettingsUpdate(conversionWindow: .set(try ConversionWindow(parsing: "1h"))))
        #expect(try goalCounts(scenario) == [])
        try scenario.settings("c1", CampaignSettingsUpdate(conversionWindow: .set(try ConversionWindow(parsing: "1d"))))
        #expect(try goalCounts(scenario) == ["10 v1 - 2 1", "12 v1 - 2 1"])

        // A pending signup of u2 after its exposure (an hour later) touches u2's folded row; the fold counts it.
        try scenario.write([conversion("signup", at: scenario.time(10, "03:00"), user: "u2")])
        try fold(scenario)
        #expect(try goalCounts(scenario) == ["10 control - 2 1", "10 v1 - 2 1", "12 v1 - 2 1"])

        // Erasing u1 takes its count out (zero rows are dropped).
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u1')", [scenario.app.id])
        try fold(scenario)
        #expect(try goalCounts(scenario) == ["10 control - 2 1", "12 v1 - 2 1"])
        // The report: control u2 signed up an hour after exposure, v1 u3 18 hours after; nobody purchased.
        let expected = ["1 control 1 0", "1 v1 1 0", "2 control 1 1", "2 v1 1 1"]
        #expect(try conversions(scenario, 10, 12, asOf: scenario.time(20, "00:00")) == expected)
        #expect(try conversions(scenario, 10, 12, asOf: scenario.time(20, "00:00"), reference: true) == expected)

        // A requeue of the whole app and a fold make the same counts again.
        _ = try ReportStateStore(connection: scenario.connection).requeue(appID: scenario.app.id)
        try fold(scenario)
        #expect(try goalCounts(scenario) == ["10 control - 2 1", "12 v1 - 2 1"])
        #expect(try countsDifferingFromRows(scenario) == 0)

        // Set again through the store (the old goals deleted, the new inserted): the same counts; removing the
        // further goals empties them.
        try scenario.settings("c1", try Self.goals(further: ["subscribe", "signup"]))
        #expect(try goalCounts(scenario) == ["10 control - 3 1", "12 v1 - 3 1"])
        try scenario.settings("c1", try Self.goals(further: []))
        #expect(try goalCounts(scenario) == [])
        #expect(try countsDifferingFromRows(scenario) == 0)
    }

    /// Tokyo days 10–12, as of day 13 06:00 UTC (Tokyo day 13 15:00): days 10 and 11 have matured under the
    /// 1-day window (day 11's last exposure, before day 11 15:00 UTC, ends before day 12 15:00 UTC), day 12 has
    /// not. Nobody purchases; the signups decide goal 2.
    private func writePartlyMaturedRange(_ scenario: ReportScenario) throws {
        try scenario.settings("c1", try Self.goals())
        try scenario.write([
            // u1 (v1), Tokyo day 10: signs up 19 hours later, a converter.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            conversion("signup", at: scenario.time(10, "20:00"), user: "u1"),
            // u2 (v1), Tokyo day 11: signs up 25 hours later, outside the day (inside 2 days).
            event(.impression, at: scenario.time(11, "01:00"), user: "u2"),
            conversion("signup", at: scenario.time(12, "02:00"), user: "u2"),
            // u3 (control), Tokyo day 11: signs up an hour later.
            event(.impression, at: scenario.time(11, "03:00"), user: "u3", variant: nil, control: true),
            conversion("signup", at: scenario.time(11, "04:00"), user: "u3"),
            // u4 (v1), Tokyo day 12 at 12:00: window ends day 13 03:00 UTC, matured; signs up an hour later.
            event(.impression, at: scenario.time(12, "03:00"), user: "u4"),
            conversion("signup", at: scenario.time(12, "04:00"), user: "u4"),
            // u5 (v1), Tokyo day 12 at 19:00: window ends day 13 10:00 UTC, not matured; signs up an hour later.
            event(.impression, at: scenario.time(12, "10:00"), user: "u5"),
            conversion("signup", at: scenario.time(12, "11:00"), user: "u5"),
            // u6 (control), Tokyo day 12 at 05:00: window ends day 12 20:00 UTC, matured; signs up never.
            event(.impression, at: scenario.time(11, "20:00"), user: "u6", variant: nil, control: true),
            // u7 (v1), Tokyo day 10: signed up the day before the exposure only, not a converter.
            conversion("signup", at: scenario.time(9, "00:00"), user: "u7"),
            event(.impression, at: scenario.time(10, "03:00"), user: "u7"),
        ])
    }

    @Test("A range whose last day has not matured adds that day's per-user rows to the goal counts of the others")
    func partlyMaturedRange() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        let asOf = scenario.time(13, "06:00")
        // Control: u3 and u6 matured, u3 signed up. v1: u1, u2, u4, u7 matured, u1 and u4 signed up in the day
        // (u2 a day and an hour later, u7 before); u5 has not matured. No purchase at all.
        let expected = ["1 control 2 0", "1 v1 4 0", "2 control 2 1", "2 v1 4 2"]
        // Pending (nothing folded yet), then folded, and over the raw events: the same.
        #expect(try conversions(scenario, 10, 12, asOf: asOf) == expected)
        try fold(scenario)
        #expect(try goalCounts(scenario) == ["10 v1 - 2 1", "11 control - 2 1", "12 v1 - 2 2"])
        #expect(try conversions(scenario, 10, 12, asOf: asOf) == expected)
        #expect(try conversions(scenario, 10, 12, asOf: asOf, reference: true) == expected)
        // A week later every day has matured (counts only): u5 matured and signed up.
        let later = scenario.time(20, "00:00")
        let matured = ["1 control 2 0", "1 v1 5 0", "2 control 2 1", "2 v1 5 3"]
        #expect(try conversions(scenario, 10, 12, asOf: later) == matured)
        #expect(try conversions(scenario, 10, 12, asOf: later, reference: true) == matured)
    }

    @Test("Asked for the goals from the second on, the report leaves the primary goal and goal-less campaigns out")
    func furtherGoalsOnly() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        // c2 has exposures and a primary goal but no further one.
        try scenario.settings("c2", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1", campaign: "c2")])
        try fold(scenario)
        let asOf = scenario.time(13, "06:00")
        // partlyMaturedRange's goal-2 rows: control u3 of u3 and u6, v1 u1 and u4 of u1, u2, u4, u7.
        let further = ["2 control 2 1", "2 v1 4 2"]
        for reference in [false, true] {
            #expect(try conversions(scenario, 10, 12, asOf: asOf, reference: reference, firstOrdinal: 2) == further)
            #expect(try conversions(scenario, 10, 12, asOf: asOf, reference: reference, campaign: "c2") == ["1 v1 1 0"])
            #expect(try conversions(
                scenario, 10, 12, asOf: asOf, reference: reference, campaign: "c2", firstOrdinal: 2
            ).isEmpty)
        }
    }

    @Test("A window override other than the campaign's reads every goal from the per-user rows")
    func windowOverride() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        try fold(scenario)
        let asOf = scenario.time(20, "00:00")
        // 2 days: u2's signup 25 hours after exposure counts too (v1: u1, u2, u4, u5).
        let twoDays = ["1 control 2 0", "1 v1 5 0", "2 control 2 1", "2 v1 5 4"]
        #expect(try conversions(scenario, 10, 12, asOf: asOf, window: "2 days") == twoDays)
        #expect(try conversions(scenario, 10, 12, asOf: asOf, window: "2 days", reference: true) == twoDays)
        // 1 hour: only u3 (an hour later: the window's end is included) and u4 and u5 (an hour later) count.
        let oneHour = ["1 control 2 0", "1 v1 5 0", "2 control 2 1", "2 v1 5 2"]
        #expect(try conversions(scenario, 10, 12, asOf: asOf, window: "1 hour") == oneHour)
        #expect(try conversions(scenario, 10, 12, asOf: asOf, window: "1 hour", reference: true) == oneHour)
    }

    @Test("Pending events replace a folded row in the goal counts: a moved exposure and a later signup")
    func pendingEventsReplaceAFoldedRow() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        try fold(scenario)
        try scenario.write([
            // u2's control impression on Tokyo day 10 (14:00), before its v1 one: u2 is now in two arms before
            // the range's end and leaves v1.
            event(.impression, at: scenario.time(10, "05:00"), user: "u2", variant: nil, control: true),
            // u6 signs up 4 hours after its exposure: a goal-2 converter from a pending conversion alone.
            conversion("signup", at: scenario.time(12, "00:00"), user: "u6"),
        ])
        let asOf = scenario.time(20, "00:00")
        // Control: u3 and u6, both signed up. v1: u1, u4, u5, u7 (u2 left), u1, u4 and u5 signed up.
        let expected = ["1 control 2 0", "1 v1 4 0", "2 control 2 2", "2 v1 4 3"]
        #expect(try conversions(scenario, 10, 12, asOf: asOf) == expected)
        #expect(try conversions(scenario, 10, 12, asOf: asOf, reference: true) == expected)
        try fold(scenario)
        #expect(try conversions(scenario, 10, 12, asOf: asOf) == expected)
        #expect(try goalCounts(scenario) == ["10 v1 - 2 1", "11 control - 2 1", "12 control - 2 1", "12 v1 - 2 2"])
        #expect(try countsDifferingFromRows(scenario) == 0)
    }
}
