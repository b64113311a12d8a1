import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// report_user_facts_of: one campaign's or canvas's rows of the per-user state, found by index.
@Suite struct ReportUserFactsOfTests {
    /// Campaigns c1 and c2 and canvas k1 (step s1), each with users folded and users still pending.
    private func writeSources(_ scenario: ReportScenario, manyUsersOf campaign: String, count: Int) throws {
        var events: [Event] = (0..<count).map { index in
            event(.impression, at: scenario.time(3, "10:00"), user: "crowd\(index)", campaign: campaign)
        }
        events += [
            event(.impression, at: scenario.time(2, "10:00"), user: "u1", campaign: "c1"),
            event(.click, at: scenario.time(2, "10:05"), user: "u1", campaign: "c1"),
            Event(
                id: UUID(), type: .impression, channel: .inAppMessage, time: scenario.time(2, "11:00"), userID: "u2",
                deviceID: nil, sessionID: nil, source: .canvas(id: "k1", stepID: "s1"), variantID: "v1",
                control: false, messageID: nil, placementID: nil, buttonID: nil, platform: .android,
                sdkVersion: "5.0", appVersion: "1.0", test: false, conversionName: nil
            ),
        ]
        _ = try scenario.write(events)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        // Pending: a new user of c1, a late day of u1, a test user of c2.
        _ = try scenario.write([
            event(.impression, at: scenario.time(4, "09:00"), user: "u3", campaign: "c1"),
            event(.impression, at: scenario.time(1, "09:00"), user: "u1", campaign: "c1"),
            event(.impression, at: scenario.time(4, "09:00"), user: "u4", campaign: "c2", test: true),
        ])
    }

    /// The rows as text, sorted, so that two reads compare whole.
    private func rows(_ scenario: ReportScenario, _ from: String) throws -> [String] {
        try scenario.connection.query("select f::text from \(from) as f order by 1", []).map {
            try $0.decode(String.self, at: 0)
        }
    }

    @Test("One source's facts are the rows of report_user_facts of that source, folded and pending alike")
    func oneSourceEqualsTheViewFiltered() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeSources(scenario, manyUsersOf: "c2", count: 20)

        let c1 = try rows(scenario, "cardinal.report_user_facts_of('c1', null)")
        #expect(c1 == (try rows(scenario, "(select * from cardinal.report_user_facts where campaign_id = 'c1')")))
        // u1 folded, and the pending events' rows of u1 (day 1) and u3.
        #expect(c1.count == 3)
        let k1 = try rows(scenario, "cardinal.report_user_facts_of(null, 'k1')")
        #expect(k1 == (try rows(scenario, "(select * from cardinal.report_user_facts where canvas_id = 'k1')")))
        #expect(k1.count == 1)
        // Neither argument: every row (20 + 1 folded users of c2 and c1, 1 of k1, 3 pending rows).
        let all = try rows(scenario, "cardinal.report_user_facts_of(null, null)")
        #expect(all == (try rows(scenario, "cardinal.report_user_facts")))
        #expect(all.count == 25)
        #expect(try rows(scenario, "cardinal.report_user_facts_of('c1', 'k1')").isEmpty)
    }

    @Test("A campaign's folded rows are read through the state's primary key, not a scan of every state row")
    func oneCampaignIsReadByIndex() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeSources(scenario, manyUsersOf: "c2", count: 1)
        // The state of a larger app, written directly: 200 campaigns of 500 folded users each. Only the state's
        // size and spread matter to the plan, not how the rows came to be.
        try scenario.connection.execute(
            """
            with groups as (
                insert into cardinal.report_groups (app_id, campaign_id, variant_id, channel, test)
                select $1, 'bulk' || n, 'v1', 'content_card', false from generate_series(1, 200) as n
                returning group_id
            )
            insert into cardinal.report_user_state (group_id, user_key, impression_days, first_impression_at)
            select g.group_id, 'user' || n, array[$2::date], $3
            from groups as g cross join generate_series(1, 500) as n
            """,
            [scenario.app.id, scenario.day(3), scenario.time(3, "10:00")]
        )

        // As the report functions run: no nested loops, so a join could only hash the whole table.
        try scenario.connection.execute("set enable_nestloop = off")
        // Fresh, as right after ingest (no statistics), and analyzed.
        for analyzed in [false, true] {
            if analyzed {
                try scenario.connection.execute("analyze cardinal.report_user_state, cardinal.report_groups")
            }
            let plan = try scenario.connection.query(
                "explain select * from cardinal.report_user_facts_of('c1', null)"
            ).map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
            #expect(plan.contains("report_user_state_pkey"), "analyzed: \(analyzed)\n\(plan)")
            #expect(!plan.contains("Seq Scan on report_user_state"), "analyzed: \(analyzed)\n\(plan)")
        }
        #expect(try rows(scenario, "cardinal.report_user_facts_of('c1', null)").count == 3)
    }
}
