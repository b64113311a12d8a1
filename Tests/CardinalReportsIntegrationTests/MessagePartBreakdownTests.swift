import CardinalCore
import CardinalStore
import Foundation
import PostgresClient
import Testing
import TestSupport

/// The unique-impressions breakdowns by the part of a message: buttons of in-app messages, placements
/// of banners, cards of content-card campaigns. The numbers are worked out by hand in each test; every event
/// is at 03:00 UTC, noon of the same report day in Tokyo.
@Suite struct MessagePartBreakdownTests {
    /// An in-app message `iam`, a content-card campaign `cards`, a banner `banners` and a push `pushes`.
    private func writeCampaigns(_ scenario: ReportScenario) throws {
        let at = { (day: Int) in scenario.time(day, "03:00") }
        try scenario.write([
            // iam: u1 sees it on day 10 and presses b1; u2 sees it on days 10 and 11, taps the body and then
            // b1 on day 11; u3 sees it on day 11 and dismisses it.
            event(.impression, .inAppMessage, at: at(10), user: "u1", campaign: "iam"),
            event(.click, .inAppMessage, at: at(10), user: "u1", campaign: "iam", button: "b1"),
            event(.impression, .inAppMessage, at: at(10), user: "u2", campaign: "iam"),
            event(.impression, .inAppMessage, at: at(11), user: "u2", campaign: "iam"),
            event(.click, .inAppMessage, at: at(11), user: "u2", campaign: "iam"),
            event(.click, .inAppMessage, at: at(11), user: "u2", campaign: "iam", button: "b1"),
            event(.impression, .inAppMessage, at: at(11), user: "u3", campaign: "iam"),
            event(.dismissal, .inAppMessage, at: at(11), user: "u3", campaign: "iam"),
            // cards: u1 sees m1 and m2 on day 10 and clicks m1 on day 12; u4 sees m1 twice on day 12 and
            // dismisses it; u5 sees a card without an id on day 12.
            event(.impression, at: at(10), user: "u1", campaign: "cards", message: "m1"),
            event(.impression, at: at(10), user: "u1", campaign: "cards", message: "m2"),
            event(.click, at: at(12), user: "u1", campaign: "cards", message: "m1"),
            event(.impression, at: at(12), user: "u4", campaign: "cards", message: "m1"),
            event(.impression, at: at(12), user: "u4", campaign: "cards", message: "m1"),
            event(.dismissal, at: at(12), user: "u4", campaign: "cards", message: "m1"),
            event(.impression, at: at(12), user: "u5", campaign: "cards"),
            // banners: u1 is sent and shown p1 on day 10; u2 is shown p2 on day 11 without a send.
            event(.send, .banner, at: at(10), user: "u1", campaign: "banners", placement: "p1"),
            event(.impression, .banner, at: at(10), user: "u1", campaign: "banners", placement: "p1"),
            event(.impression, .banner, at: at(11), user: "u2", campaign: "banners", placement: "p2"),
            // pushes: sent to u1, u2 and u3 on day 10. u1 presses the action button `yes`; u2 taps the body and
            // then `yes`; u3 opens the app two hours later (an influenced open) and dismisses the notification.
            event(.send, .push, at: at(10), user: "u1", campaign: "pushes"),
            event(.send, .push, at: at(10), user: "u2", campaign: "pushes"),
            event(.send, .push, at: at(10), user: "u3", campaign: "pushes"),
            event(.click, .push, at: at(10), user: "u1", campaign: "pushes", button: "yes"),
            event(.click, .push, at: at(10), user: "u2", campaign: "pushes"),
            event(.click, .push, at: at(10), user: "u2", campaign: "pushes", button: "yes"),
            event(.sessionStart, at: scenario.time(10, "05:00"), user: "u3"),
            event(.dismissal, .push, at: at(10), user: "u3", campaign: "pushes"),
        ])
    }

    /// The report's rows of one campaign as "breakdown impressions unique daily recipients clicks
    /// unique-clicks dismissals unique-dismissals" (`-` for a NULL breakdown).
    private func rows(_ scenario: ReportScenario, _ by: ReportBreakdown, _ campaign: String) throws -> [String] {
        try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(0, 30), by: by)
            .filter { $0.campaignID == campaign }
            .map { row in
                [row.breakdown ?? "-", "\(row.impressions)", "\(row.uniqueImpressions)", "\(row.uniqueDailyImpressions)",
                 "\(row.uniqueRecipients)", "\(row.clicks)", "\(row.uniqueClicks)", "\(row.dismissals)",
                 "\(row.uniqueDismissals)"].joined(separator: " ")
            }
    }

    @Test("By button, an in-app message gets a row per button clicked, each with the message's impressions")
    func buttonsSplitInAppClicks() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeCampaigns(scenario)
        try scenario.beforeAndAfterFold { folded throws in
            // The message: 4 impressions by u1, u2, u3; (day, user) pairs u1·10, u2·10, u2·11, u3·11; one
            // dismissal. b1: u1 and u2, one click each; the body: u2's one click.
            #expect(try rows(scenario, .buttonID, "iam") == ["b1 4 3 4 4 2 2 1 1", "- 4 3 4 4 1 1 1 1"],
                    "folded: \(folded)")
            let b1 = try #require(try UniqueImpressionsQuery(connection: scenario.connection)
                .run(scenario.scope(0, 30), by: .buttonID).first { $0.campaignID == "iam" && $0.breakdown == "b1" })
            #expect(b1.clickRate == 0.5, "folded: \(folded)")
            // Cards stay whole: one row, breakdown NULL; (day, user) pairs u1·10, u4·12, u5·12.
            #expect(try rows(scenario, .buttonID, "cards") == ["- 5 3 3 3 1 1 1 1"], "folded: \(folded)")
        }
    }

    @Test("By button, a push gets a row per action button, each with the message's recipients and total opens")
    func buttonsSplitPushClicks() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeCampaigns(scenario)
        try scenario.beforeAndAfterFold { folded throws in
            // The message: 3 recipients, u3's dismissal. `yes`: u1 and u2, a click each; the body: u2's click.
            #expect(try rows(scenario, .buttonID, "pushes") == ["yes 0 0 0 3 2 2 1 1", "- 0 0 0 3 1 1 1 1"],
                    "folded: \(folded)")
            let pushRows = try UniqueImpressionsQuery(connection: scenario.connection)
                .run(scenario.scope(0, 30), by: .buttonID).filter { $0.campaignID == "pushes" }
            // Direct opens are each row's; u3's influenced open and the message's total opens (u1, u2 opened
            // directly, u3 influenced: 3 of 3 recipients) are on both rows.
            // As "direct-opens unique-direct-opens influenced-opens total-opens".
            #expect(pushRows.map { row in
                [row.directOpens, row.uniqueDirectOpens, row.influencedOpens, row.totalOpens]
                    .map { $0.map(String.init) ?? "nil" }.joined(separator: " ")
            } == ["2 2 1 3", "1 1 1 3"], "folded: \(folded)")
            let directOpenRates: [Double?] = [2.0 / 3, 1.0 / 3]
            let totalOpenRates: [Double?] = [1, 1]
            #expect(pushRows.map(\.directOpenRate) == directOpenRates, "folded: \(folded)")
            #expect(pushRows.map(\.totalOpenRate) == totalOpenRates, "folded: \(folded)")
            // Unsplit, the message's row: 3 clicks by 2 users.
            #expect(try rows(scenario, .messageID, "pushes") == ["- 0 0 0 3 3 2 1 1"], "folded: \(folded)")
        }
    }

    @Test("Push clicks folded before migration 0098 get their button rows from it, and pending ones from the fold")
    func migrationSplitsPushClicksFoldedBefore() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeCampaigns(scenario)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        // A state folded before 0098 kept no part of a push click; u4's tap arrives after the fold.
        try scenario.write([event(.click, .push, at: scenario.time(11, "03:00"), user: "u4", campaign: "pushes",
                                  button: "no")])
        _ = try scenario.connection.query("""
            delete from cardinal.report_part_state as p
            using cardinal.report_groups as g
            where g.group_id = p.group_id and g.channel = 'push'
            """)
        _ = try scenario.connection.query("delete from cardinal.schema_migrations where version = 98")
        try TestDatabase.migrator(for: scenario.connection).migrate()
        try scenario.beforeAndAfterFold { folded throws in
            // The message as above, and u4's click on `no` (no send: u4 is no recipient).
            #expect(try rows(scenario, .buttonID, "pushes")
                        == ["no 0 0 0 3 1 1 1 1", "yes 0 0 0 3 2 2 1 1", "- 0 0 0 3 1 1 1 1"],
                    "folded: \(folded)")
        }
    }

    @Test("By card and by placement, every column is counted per card or placement, and a missing id is NULL")
    func cardsAndPlacementsSplitEveryColumn() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeCampaigns(scenario)
        try scenario.beforeAndAfterFold { folded throws in
            // m1: impressions u1·10, u4·12 ×2 → 3 events, 2 users, 2 pairs; u1's click; u4's dismissal.
            // m2: u1·10. No id: u5·12.
            #expect(try rows(scenario, .messageID, "cards")
                        == ["m1 3 2 2 2 1 1 1 1", "m2 1 1 1 1 0 0 0 0", "- 1 1 1 1 0 0 0 0"], "folded: \(folded)")
            // A banner is received when it is shown: p1 by u1 on day 10, p2 by u2 on day 11.
            #expect(try rows(scenario, .placementID, "banners") == ["p1 1 1 1 1 0 0 0 0", "p2 1 1 1 1 0 0 0 0"],
                    "folded: \(folded)")
            // The in-app message is whole under the card breakdown.
            #expect(try rows(scenario, .messageID, "iam") == ["- 4 3 4 4 3 2 1 1"], "folded: \(folded)")
        }
    }

    @Test("Erasing a user takes the user's events out of every part's counts")
    func erasureTakesPartsOut() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeCampaigns(scenario)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        _ = try IdentityEraser(connection: scenario.connection)
            .erase(ErasureTarget(kind: .user, id: "u4"), appID: scenario.app.id)
        // m1 keeps u1's impression and click.
        #expect(try rows(scenario, .messageID, "cards")
                    == ["m1 1 1 1 1 1 1 0 0", "m2 1 1 1 1 0 0 0 0", "- 1 1 1 1 0 0 0 0"])
        let left = try scenario.connection.query(
            "select count(*) from cardinal.report_part_state where user_key = 'u4'"
        ).first?.decode(Int64.self, at: 0)
        #expect(left == 0)
    }
}
