import CardinalCore
import CardinalStore
import Foundation
import PostgresClient
import Testing

/// send_arms (0027, hashed since 0053): the users per campaign × arm with a send on a report day of the range,
/// each user once per arm however many groups (channel, platform, versions) hold the sends.
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
