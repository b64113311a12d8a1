import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The control report's counts per exposure day and the window on the campaign's clock. The scenario's
/// app reports in Asia/Tokyo (UTC+9): report day N runs from day N−1 15:00 UTC to day N 15:00 UTC, so an event
/// at day N 01:00 UTC is on Tokyo day N at 10:00, one at day N 16:00 UTC on Tokyo day N+1 at 01:00.
@Suite struct ControlExposureDaysTests {
    /// c1 counts "purchase" within one day of exposure.
    private static func oneDayPurchase() throws -> CampaignSettingsUpdate {
        CampaignSettingsUpdate(conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "1d")))
    }

    /// c1's counts, one line per row: "exposure day, arm, second arm's day (- for none), users, converters",
    /// the days as the scenario's day numbers.
    private func counts(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s %s', d.exposed_day - $1::date,
                          case when d.control then 'control' else d.variant_key end,
                          case when d.second_arm_day = 'infinity' then '-'
                               else (d.second_arm_day - $1::date)::text end,
                          d.users, d.converters)
            from cardinal.report_control_exposure_days as d
            where d.campaign_id = 'c1'
            order by d.exposed_day, d.control desc, d.variant_key, d.second_arm_day
            """,
            [scenario.day(0)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// How many rows of the counts differ from the aggregate of the per-user rows (both ways).
    private func countsDifferingFromRows(_ scenario: ReportScenario) throws -> Int64 {
        try scenario.connection.query(
            """
            select (select count(*) from (table cardinal.report_control_exposure_days
                                          except table cardinal.report_control_exposure_days_of_rows) as extra)
                   + (select count(*) from (table cardinal.report_control_exposure_days_of_rows
                                            except table cardinal.report_control_exposure_days) as missing)
            """
        ).first!.decode(Int64.self, at: 0)
    }

    /// c1's arms from `function` (control_arms or control_arms_reference) as "arm users converters exposed
    /// several" lines, control first.
    private func arms(
        _ scenario: ReportScenario, _ from: Int, _ to: Int, asOf: Date, window: String? = nil,
        function: String = "control_arms"
    ) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s %s', case when control then 'control' else variant_id end, users,
                          coalesce(converters::text, '-'), exposed_users, users_in_several_arms)
            from cardinal.\(function)($1, 'c1', $2, $3, $4, null, $5::interval)
            order by control desc, variant_id
            """,
            [ReportScenario.appName, scenario.day(from), scenario.day(to), asOf, window]
        ).map { try $0.decode(String.self, at: 0) }
    }

    private func fold(_ scenario: ReportScenario) throws {
        _ = try ReportStateStore(connection: scenario.connection).fold()
    }

    @Test("The counts stay the aggregate of the per-user rows through folds, erasure, requeue and settings changes")
    func countsFollowTheRows() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", try Self.oneDayPurchase())
        try scenario.write([
            // u1 (v1): Tokyo day 10, buys 4 hours later: a converter within 1 day (and not within 1 hour).
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.conversion, at: scenario.time(10, "05:00"), user: "u1", conversion: "purchase"),
            // u2 (control): Tokyo day 10.
            event(.impression, at: scenario.time(10, "02:00"), user: "u2", variant: nil, control: true),
            // u3 (v1): Tokyo day 12 (01:00), a control impression on Tokyo day 13 (05:00): a second arm that day.
            event(.impression, at: scenario.time(11, "16:00"), user: "u3"),
            event(.impression, at: scenario.time(12, "20:00"), user: "u3", variant: nil, control: true),
        ])
        try fold(scenario)
        #expect(try counts(scenario) == ["10 control - 1 0", "10 v1 - 1 1", "12 v1 13 1 0"])
        #expect(try countsDifferingFromRows(scenario) == 0)

        // Another conversion event: u1 bought nothing else. Back to purchase: u1 again.
        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("signup")))
        #expect(try counts(scenario) == ["10 control - 1 0", "10 v1 - 1 0", "12 v1 13 1 0"])
        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("purchase")))
        #expect(try counts(scenario) == ["10 control - 1 0", "10 v1 - 1 1", "12 v1 13 1 0"])
        // A window of 1 hour changes no row: the recount leaves u1 out (4 hours); 1 day brings u1 back.
        try scenario.settings("c1", CampaignSettingsUpdate(conversionWindow: .set(try ConversionWindow(parsing: "1h"))))
        #expect(try counts(scenario) == ["10 control - 1 0", "10 v1 - 1 0", "12 v1 13 1 0"])
        try scenario.settings("c1", try Self.oneDayPurchase())
        #expect(try countsDifferingFromRows(scenario) == 0)

        // Erasing u2 takes the control row out (zero rows are dropped).
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u2')", [scenario.app.id])
        try fold(scenario)
        #expect(try counts(scenario) == ["10 v1 - 1 1", "12 v1 13 1 0"])

        // In UTC (the campaign's own zone) u3 is on day 11 with the second arm on day 12; the requeue the zone
        // change makes and the next fold count them anew.
        try scenario.settings("c1", CampaignSettingsUpdate(reportTimeZone: .set("UTC")))
        #expect(try counts(scenario) == [])
        try fold(scenario)
        #expect(try counts(scenario) == ["10 v1 - 1 1", "11 v1 12 1 0"])

        // A requeue of the whole app and a fold make the same counts again.
        _ = try ReportStateStore(connection: scenario.connection).requeue(appID: scenario.app.id)
        try fold(scenario)
        #expect(try counts(scenario) == ["10 v1 - 1 1", "11 v1 12 1 0"])
        #expect(try countsDifferingFromRows(scenario) == 0)
    }

    /// Tokyo days 10–12 under a 1-day purchase window; as of day 13 06:00 UTC (Tokyo day 13 15:00) days 10 and
    /// 11 have matured (day 11's last exposure, before day 11 15:00 UTC, ends before day 12 15:00 UTC), day 12
    /// has not (its exposures end up to day 13 15:00 UTC).
    private func writePartlyMaturedRange(_ scenario: ReportScenario) throws {
        try scenario.settings("c1", try Self.oneDayPurchase())
        try scenario.write([
            // u1 (v1), Tokyo day 10: buys 19 hours later, a converter.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.conversion, at: scenario.time(10, "20:00"), user: "u1", conversion: "purchase"),
            // u2 (v1), Tokyo day 11: buys 25 hours later, outside the day (inside 2 days).
            event(.impression, at: scenario.time(11, "01:00"), user: "u2"),
            event(.conversion, at: scenario.time(12, "02:00"), user: "u2", conversion: "purchase"),
            // u3 (control), Tokyo day 11: buys an hour later.
            event(.impression, at: scenario.time(11, "03:00"), user: "u3", variant: nil, control: true),
            event(.conversion, at: scenario.time(11, "04:00"), user: "u3", conversion: "purchase"),
            // u4 (v1), Tokyo day 12 at 12:00: window ends day 13 03:00 UTC, matured; buys an hour later.
            event(.impression, at: scenario.time(12, "03:00"), user: "u4"),
            event(.conversion, at: scenario.time(12, "04:00"), user: "u4", conversion: "purchase"),
            // u5 (v1), Tokyo day 12 at 19:00: window ends day 13 10:00 UTC, not matured; buys an hour later.
            event(.impression, at: scenario.time(12, "10:00"), user: "u5"),
            event(.conversion, at: scenario.time(12, "11:00"), user: "u5", conversion: "purchase"),
            // u6 (control), Tokyo day 12 at 05:00: window ends day 12 20:00 UTC, matured; buys nothing.
            event(.impression, at: scenario.time(11, "20:00"), user: "u6", variant: nil, control: true),
        ])
    }

    @Test("A range whose last day has not matured adds the per-user rows of that day to the counts of the others")
    func partlyMaturedRange() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        let asOf = scenario.time(13, "06:00")
        // Control: u3 and u6 matured, u3 converted. v1: u1, u2, u4 matured, u1 and u4 converted; u5 exposed.
        let expected = ["control 2 1 2 0", "v1 3 2 4 0"]
        // Pending (nothing folded yet), then folded: the same.
        #expect(try arms(scenario, 10, 12, asOf: asOf) == expected)
        try fold(scenario)
        #expect(try counts(scenario) == ["10 v1 - 1 1", "11 control - 1 1", "11 v1 - 1 0", "12 control - 1 0",
                                         "12 v1 - 2 2"])
        #expect(try arms(scenario, 10, 12, asOf: asOf) == expected)
        #expect(try arms(scenario, 10, 12, asOf: asOf, function: "control_arms_reference") == expected)
        // A week later every day has matured (counts only): u5 matured and converted.
        let later = scenario.time(20, "00:00")
        #expect(try arms(scenario, 10, 12, asOf: later) == ["control 2 1 2 0", "v1 4 3 4 0"])
        #expect(try arms(scenario, 10, 12, asOf: later, function: "control_arms_reference")
                    == ["control 2 1 2 0", "v1 4 3 4 0"])
    }

    @Test("Days none of whose exposures has matured add exposed users only, pending changes to them included")
    func unmaturedDays() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        try fold(scenario)
        // As of day 12 02:00 UTC under the 1-day window: Tokyo day 10 has matured, day 11 is cut (u2's window
        // ended at day 12 01:00 UTC, u3's ends at 03:00), and day 12 has no matured exposure (its first instant,
        // day 11 15:00 UTC, ends at day 12 15:00). Control: u3 and u6 exposed, none matured. v1: u1 and u2
        // matured, u1 converted (u2 bought 25 hours later), u4 and u5 exposed.
        let asOf = scenario.time(12, "02:00")
        for function in ["control_arms", "control_arms_reference"] {
            #expect(try arms(scenario, 10, 12, asOf: asOf, function: function) == ["control 0 0 2 0", "v1 2 1 4 0"])
            #expect(try arms(scenario, 12, 12, asOf: asOf, function: function) == ["control 0 0 1 0", "v1 0 0 2 0"])
        }
        // Not folded: u5's control impression on Tokyo day 12 before its v1 one puts u5 in two arms on day 12.
        try scenario.write([event(.impression, at: scenario.time(12, "01:00"), user: "u5", variant: nil, control: true)])
        for function in ["control_arms", "control_arms_reference"] {
            #expect(try arms(scenario, 10, 12, asOf: asOf, function: function) == ["control 0 0 2 1", "v1 2 1 3 1"])
            #expect(try arms(scenario, 12, 12, asOf: asOf, function: function) == ["control 0 0 1 1", "v1 0 0 1 1"])
        }
        try fold(scenario)
        #expect(try arms(scenario, 10, 12, asOf: asOf) == ["control 0 0 2 1", "v1 2 1 3 1"])
        #expect(try countsDifferingFromRows(scenario) == 0)
    }

    @Test("A window override other than the campaign's reads the per-user rows; the same window reads the counts")
    func windowOverride() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        try fold(scenario)
        let asOf = scenario.time(20, "00:00")
        // 2 days: u2's purchase 25 hours after exposure counts too.
        #expect(try arms(scenario, 10, 12, asOf: asOf, window: "2 days") == ["control 2 1 2 0", "v1 4 4 4 0"])
        #expect(try arms(scenario, 10, 12, asOf: asOf, window: "2 days", function: "control_arms_reference")
                    == ["control 2 1 2 0", "v1 4 4 4 0"])
        // 24 hours ends where 1 day does in Tokyo, but is another window (elapsed hours): per-user rows, same users.
        #expect(try arms(scenario, 10, 12, asOf: asOf, window: "24 hours") == ["control 2 1 2 0", "v1 4 3 4 0"])
        #expect(try arms(scenario, 10, 12, asOf: asOf, window: "1 day") == ["control 2 1 2 0", "v1 4 3 4 0"])
    }

    @Test("Pending events that move a folded user's exposure to another day and arm replace the user's counted row")
    func pendingEventsReplaceAFoldedRow() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", try Self.oneDayPurchase())
        try scenario.write([
            // u1 (v1) Tokyo day 11, u2 (v1) day 10, u3 (control) day 11, folded.
            event(.impression, at: scenario.time(11, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2"),
            event(.impression, at: scenario.time(11, "02:00"), user: "u3", variant: nil, control: true),
        ])
        try fold(scenario)
        // Not folded: u1's control impression on Tokyo day 10, earlier than the v1 one. u1 is now first exposed
        // on day 10 in control, with a second arm (v1) on day 11.
        try scenario.write([
            event(.impression, at: scenario.time(10, "03:00"), user: "u1", variant: nil, control: true)
        ])
        let asOf = scenario.time(20, "00:00")
        // Days 10–11: u1's second arm is before the range's end, in several arms; control u3, v1 u2.
        let whole = ["control 1 0 1 1", "v1 1 0 1 1"]
        // Day 10 only: u1's second arm comes after the range's end, so u1 counts in control; v1 u2.
        let first = ["control 1 0 1 0", "v1 1 0 1 0"]
        // Day 11 only: u1 left it (first exposed on day 10); control u3, and no v1 arm at all.
        let second = ["control 1 0 1 0"]
        for function in ["control_arms", "control_arms_reference"] {
            #expect(try arms(scenario, 10, 11, asOf: asOf, function: function) == whole)
            #expect(try arms(scenario, 10, 10, asOf: asOf, function: function) == first)
            #expect(try arms(scenario, 11, 11, asOf: asOf, function: function) == second)
        }
        try fold(scenario)
        #expect(try counts(scenario) == ["10 control 11 1 0", "10 v1 - 1 0", "11 control - 1 0"])
        #expect(try arms(scenario, 10, 11, asOf: asOf) == whole)
        #expect(try arms(scenario, 10, 10, asOf: asOf) == first)
        #expect(try arms(scenario, 11, 11, asOf: asOf) == second)
    }

    @Test("Across a daylight-saving change the window ends on the campaign's clock whatever the session's zone")
    func windowOnTheCampaignsClock() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // Events of 2025 and early 2026: a retention long enough to store them.
        try scenario.connection.execute("update cardinal.settings set retention_days = 3650")
        try scenario.settings(
            "c1",
            CampaignSettingsUpdate(
                conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d")),
                reportTimeZone: .set("Europe/Berlin")
            )
        )
        func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        try scenario.write([
            // Berlin moved from UTC+1 to UTC+2 on 2026-03-29: 3 days from 2026-03-27 13:00 local (12:00 UTC)
            // end 2026-03-30 13:00 local = 11:00 UTC, 71 hours. u1 buys at 11:00 UTC: in; u2 at 11:30: out
            // (in 72 hours, which a UTC session added).
            event(.impression, at: at("2026-03-27T12:00:00Z"), user: "u1"),
            event(.conversion, at: at("2026-03-30T11:00:00Z"), user: "u1", conversion: "purchase"),
            event(.impression, at: at("2026-03-27T12:00:00Z"), user: "u2"),
            event(.conversion, at: at("2026-03-30T11:30:00Z"), user: "u2", conversion: "purchase"),
            // And back to UTC+1 on 2025-10-26: 3 days from 2025-10-24 14:00 local (12:00 UTC) end 2025-10-27
            // 14:00 local = 13:00 UTC, 73 hours. u3 buys at 12:30 UTC: in (out of 72 hours).
            event(.impression, at: at("2025-10-24T12:00:00Z"), user: "u3"),
            event(.conversion, at: at("2025-10-27T12:30:00Z"), user: "u3", conversion: "purchase"),
        ])
        try scenario.beforeAndAfterFold { folded throws in
            for session in ["UTC", "Europe/Berlin", "America/New_York"] {
                try scenario.connection.execute("set time zone '\(session)'", [])
                // v1: u1, u2, u3 matured; u1 and u3 converted, from the counts, the per-user rows (the window
                // given as 3 days is the campaign's: counts), the per-user state (the conversion event given
                // for every campaign) and the raw events alike. 72 hours (elapsed) takes u1 and u2 instead.
                for (function, overrides) in [("control_arms", "null, null"), ("control_arms", "null, '3 days'"),
                                              ("control_arms_reference", "null, null"),
                                              ("control_arms_from_user_state", "'purchase', null"),
                                              ("control_arms", "null, '72 hours'")] {
                    let rows = try scenario.connection.query(
                        """
                        select format('%s %s %s', variant_id, users, converters)
                        from cardinal.\(function)($1, 'c1', '2025-10-24', '2026-03-27', now(), \(overrides))
                        """,
                        [ReportScenario.appName]
                    ).map { try $0.decode(String.self, at: 0) }
                    #expect(rows == ["v1 3 2"], "\(function) \(overrides), session \(session), folded \(folded)")
                }
            }
        }
    }

    @Test("The migration's backfill equals what the triggers build")
    func backfillEqualsTriggers() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writePartlyMaturedRange(scenario)
        try fold(scenario)
        let built = try counts(scenario)
        // The backfill statement of 0046, on an emptied table.
        try scenario.connection.execute("delete from cardinal.report_control_exposure_days")
        try scenario.connection.execute(
            """
            insert into cardinal.report_control_exposure_days
            select * from cardinal.report_control_exposure_days_of_rows
            order by app_id, campaign_id, exposed_day, control, variant_key, second_arm_day
            """
        )
        #expect(try counts(scenario) == built)
        #expect(!built.isEmpty)
    }
}
