import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// send_arms (0027, hashed since 0053, from day pairs since 0055): the users per campaign × arm with a send on a
/// report day of the range, each user once per arm however many groups (channel, platform, versions) hold the
/// sends.
///
/// The app's days are Asia/Tokyo's (ReportScenario): every event below is at 10:00 UTC, on its own report day.
@Suite struct SendArmsTests {
    /// The rows of send_arms for the scenario's app over report days `from`…`to`, as "campaign arm users".
    private func arms(_ scenario: ReportScenario, _ from: Int, _ to: Int, includeTest: Bool = false) throws -> [String] {
        try scenario.connection.query(
            """
            select campaign_id || ' ' || coalesce(variant_id, 'control') || ' ' || users
            from cardinal.send_arms($1, null, $2, $3, $4)
            """,
            [ReportScenario.appName, scenario.day(from), scenario.day(to), includeTest]
        ).map { try $0.decode(String.self, at: 0) }
    }

    private func fold(_ scenario: ReportScenario) throws {
        _ = try ReportStateStore(connection: scenario.connection).fold()
    }

    /// c1's day pairs as "arm day previous users", days counted from day 0, control first.
    private func pairs(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s', case when p.control then 'control' else p.variant_key end, p.day - $1::date,
                          case when p.previous_day = '-infinity' then '-' else (p.previous_day - $1::date)::text end,
                          p.users)
            from cardinal.report_arm_day_users as p
            where p.campaign_id = 'c1'
            order by p.control desc, p.variant_key, p.day, p.previous_day
            """,
            [scenario.day(0)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// How many rows of the send arm days and pairs differ from what the per-user state makes (both ways).
    private func countsDifferingFromState(_ scenario: ReportScenario) throws -> Int64 {
        try scenario.connection.query(
            """
            select (select count(*) from (table cardinal.report_arm_user_days
                                          except table cardinal.report_arm_user_days_of_rows) as extra)
                   + (select count(*) from (table cardinal.report_arm_user_days_of_rows
                                            except table cardinal.report_arm_user_days) as missing)
                   + (select count(*) from (table cardinal.report_arm_day_users
                                            except table cardinal.report_arm_day_users_of_rows) as extra_pairs)
                   + (select count(*) from (table cardinal.report_arm_day_users_of_rows
                                            except table cardinal.report_arm_day_users) as missing_pairs)
            """
        ).first!.decode(Int64.self, at: 0)
    }

    @Test("The day pairs count each user once per arm across groups, in ranges that cut, pending and deleted rows included")
    func dayPairsCountUsersOncePerArm() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let at = { (day: Int) in scenario.time(day, "10:00") }
        try scenario.write([
            // u1, v1: day 2 in two groups (content card iOS, push Android), day 5 (content card SDK 5.1), day 7
            // (push Android): days {2, 5, 7}.
            event(.send, at: at(2), user: "u1"),
            event(.send, .push, at: at(2), user: "u1", platform: .android),
            event(.send, at: at(5), user: "u1", sdk: "5.1"),
            event(.send, .push, at: at(7), user: "u1", platform: .android),
            // u2, v1: days {4, 6}.
            event(.send, at: at(4), user: "u2"),
            event(.send, at: at(6), user: "u2"),
            // u3, control: day 3 under v1's id, day 5 under v2's: one control user with days {3, 5}.
            event(.send, at: at(3), user: "u3", control: true),
            event(.send, at: at(5), user: "u3", variant: "v2", control: true),
        ])
        try fold(scenario)

        // Each user's sorted days paired with the one before: control u3 (3, -) (5, 3); v1 u1 (2, -) (5, 2)
        // (7, 5), u2 (4, -) (6, 4).
        #expect(try pairs(scenario) == ["control 3 - 1", "control 5 3 1", "v1 2 - 1", "v1 4 - 1", "v1 5 2 1",
                                        "v1 6 4 1", "v1 7 5 1"])
        // Days 5–6 cut every user's days: v1 u1 (5 after 2) and u2 (6 after 4); control u3 (5 after 3).
        #expect(try arms(scenario, 5, 6) == ["c1 control 1", "c1 v1 2"])
        // Days 3–4: v1 u2 only (u1 has no day there), control u3.
        #expect(try arms(scenario, 3, 4) == ["c1 control 1", "c1 v1 1"])

        // Pending: u4 to v1 on day 6 (new), u2 to v1 on day 5 (already in v1 on day 6), u1 to control on day 6
        // (new in control). Days 5–6: v1 u1, u2, u4; control u3, u1. Days 3–4 unchanged.
        try scenario.write([
            event(.send, at: at(6), user: "u4"),
            event(.send, at: at(5), user: "u2"),
            event(.send, at: at(6), user: "u1", control: true),
        ])
        #expect(try arms(scenario, 5, 6) == ["c1 control 2", "c1 v1 3"])
        #expect(try arms(scenario, 3, 4) == ["c1 control 1", "c1 v1 1"])
        try fold(scenario)
        #expect(try arms(scenario, 5, 6) == ["c1 control 2", "c1 v1 3"])
        #expect(try arms(scenario, 3, 4) == ["c1 control 1", "c1 v1 1"])
        // u2's days are {4, 5, 6} now: (5, 4) and (6, 5) instead of (6, 4).
        #expect(try pairs(scenario).contains("v1 5 4 1"))
        #expect(try pairs(scenario).contains("v1 6 5 1"))
        #expect(try countsDifferingFromState(scenario) == 0)

        // Deleting u1's push Android row of v1: day 2 stays (the content card row holds it), day 7 leaves.
        _ = try scenario.connection.execute(
            """
            delete from cardinal.report_user_state as u
            using cardinal.report_groups as g
            where g.group_id = u.group_id and u.user_key = 'u1' and g.channel = 'push' and g.variant_id = 'v1'
            """
        )
        #expect(try arms(scenario, 7, 7) == [])
        #expect(try arms(scenario, 2, 2) == ["c1 v1 1"])
        #expect(try countsDifferingFromState(scenario) == 0)

        // Erasing u1 takes it out of v1 and control: days 5–6 v1 u2, u4; control u3.
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u1')", [scenario.app.id])
        try fold(scenario)
        #expect(try arms(scenario, 5, 6) == ["c1 control 1", "c1 v1 2"])
        #expect(try arms(scenario, 1, 7) == ["c1 control 1", "c1 v1 2"])
        #expect(try countsDifferingFromState(scenario) == 0)
    }

    @Test("Each user counts once per campaign and arm across groups, in the range, pending events and erasure included")
    func usersCountOncePerArmInTheRange() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let at = { (day: Int) in scenario.time(day, "10:00") }
        try scenario.write([
            // u1: v1 of c1 in three groups (content card iOS 5.0 on day 2, push Android on day 3, content card
            // iOS SDK 5.1 on day 5), and v1 of c2 on day 3.
            event(.send, at: at(2), user: "u1"),
            event(.send, .push, at: at(3), user: "u1", platform: .android),
            event(.send, at: at(5), user: "u1", sdk: "5.1"),
            event(.send, at: at(3), user: "u1", campaign: "c2"),
            // u2: v2 of c1 on day 1 only.
            event(.send, at: at(1), user: "u2", variant: "v2"),
            // u3: control of c1 on day 4.
            event(.send, at: at(4), user: "u3", variant: nil, control: true),
            // u4: control of c1 on day 3, then v1 on day 4 (both arms).
            event(.send, at: at(3), user: "u4", variant: nil, control: true),
            event(.send, at: at(4), user: "u4"),
            // u6: a test send of v1 on day 3.
            event(.send, at: at(3), user: "u6", test: true),
        ])
        try fold(scenario)

        // Days 3–4: control u3, u4; v1 u1 (day 3, once across its groups), u4; v2 none (u2 is on day 1).
        #expect(try arms(scenario, 3, 4) == ["c1 control 2", "c1 v1 2", "c2 v1 1"])
        // With test events: u6 joins v1 of c1.
        #expect(try arms(scenario, 3, 4, includeTest: true) == ["c1 control 2", "c1 v1 3", "c2 v1 1"])
        // Day 5 alone: u1's third group only. Days 1–5: u2 too.
        #expect(try arms(scenario, 5, 5) == ["c1 v1 1"])
        #expect(try arms(scenario, 1, 5) == ["c1 control 2", "c1 v1 2", "c1 v2 1", "c2 v1 1"])

        // Pending, not folded: u7 to v2 on day 4, and u1 again to v1 on day 4 in a new group (web), which
        // changes nothing: u1 is already in v1.
        try scenario.write([
            event(.send, at: at(4), user: "u7", variant: "v2"),
            event(.send, at: at(4), user: "u1", platform: .web),
        ])
        #expect(try arms(scenario, 3, 4) == ["c1 control 2", "c1 v1 2", "c1 v2 1", "c2 v1 1"])
        try fold(scenario)
        #expect(try arms(scenario, 3, 4) == ["c1 control 2", "c1 v1 2", "c1 v2 1", "c2 v1 1"])

        // Erasing u4 takes one user out of both arms of c1: control u3, v1 u1.
        _ = try scenario.connection.query("select cardinal.erase_identity($1, 'user', 'u4')", [scenario.app.id])
        try fold(scenario)
        #expect(try arms(scenario, 3, 4) == ["c1 control 1", "c1 v1 1", "c1 v2 1", "c2 v1 1"])
    }
}
