import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite struct UniqueImpressionsTests {
    @Test("Duplicates by id are stored once, one user on two devices is one user, anonymous then identified is one")
    func identityAndDuplicates() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let duplicated = event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1")
        let stored = try scenario.write([
            duplicated,
            duplicated,                                                             // a retry: same id and time
            event(.impression, at: scenario.time(10, "04:00"), user: "u1", device: "d2"),  // u1's second device
            event(.click, at: scenario.time(10, "04:30"), user: "u1", device: "d2"),
            event(.impression, at: scenario.time(10, "05:00"), device: "d5"),              // anonymous: device:d5
            event(.dismissal, at: scenario.time(10, "05:30"), device: "d5"),
            event(.impression, at: scenario.time(10, "06:00"), user: "u5", device: "d5"),  // identified later: u5
        ])
        #expect(stored == [true, false, true, true, true, true, true])

        let rows = try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(10, 10))
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.campaignID == "c1")
        #expect(row.variantID == "v1")
        #expect(row.channel == "content_card")
        // Impressions: the duplicate once, u1/d2, device:d5, u5 = 4 events.
        #expect(row.impressions == 4)
        // Users: u1 (two devices, one user) and u5 = 2: u5, new when logging in on d5, merges d5's anonymous
        // events, already before the fold (IdentityMergeTests, ExactBeforeFoldTests).
        #expect(row.uniqueImpressions == 2)
        // All between 12:00 and 15:00 in Tokyo on day 10, one report day: 2 (day, user) pairs.
        #expect(row.uniqueDailyImpressions == 2)
        // Content cards are received when seen: the same 2 pairs.
        #expect(row.uniqueRecipients == 2)
        #expect(row.clicks == 1)
        #expect(row.uniqueClicks == 1)
        #expect(row.dismissals == 1)
        #expect(row.uniqueDismissals == 1)
        // 1 click / 4 impressions; 1 clicking user / 2 users; the same for the one dismissal.
        #expect(row.clickRate == 0.25)
        #expect(row.uniqueClickRate == 0.5)
        #expect(row.dismissalRate == 0.25)
        #expect(row.uniqueDismissalRate == 0.5)
        // The fold changes nothing.
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)
        #expect(try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(10, 10)) == rows)
    }

    @Test("A report day is a calendar day in Asia/Tokyo: 15:00 UTC starts the next day, and to is included")
    func calendarDayBoundaryInTokyo() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // Report days 10…11 in Tokyo (UTC+9) are [day 9 15:00 UTC, day 11 15:00 UTC).
        try scenario.write([
            event(.impression, at: scenario.time(9, "14:59:59"), user: "u1"),  // Tokyo day 9 23:59:59: out
            event(.impression, at: scenario.time(9, "15:00:00"), user: "u1"),  // Tokyo day 10 00:00: day 10
            event(.impression, at: scenario.time(10, "14:59:59"), user: "u1"), // Tokyo day 10 23:59:59: day 10
            event(.impression, at: scenario.time(10, "15:00:00"), user: "u1"), // Tokyo day 11 00:00: day 11
            event(.impression, at: scenario.time(11, "14:59:59"), user: "u2"), // Tokyo day 11 23:59:59: day 11
            event(.impression, at: scenario.time(11, "15:00:00"), user: "u2"), // Tokyo day 12 00:00: out
        ])
        let query = UniqueImpressionsQuery(connection: scenario.connection)

        let total = try #require(try query.run(scenario.scope(10, 11)).first)
        #expect(total.impressions == 4)
        #expect(total.uniqueImpressions == 2)
        // Day 10: {u1}; day 11: {u1, u2}: 1 + 2 = 3.
        #expect(total.uniqueDailyImpressions == 3)

        let days = try query.run(scenario.scope(10, 11), by: .day)
        #expect(days.map(\.breakdown) == [scenario.day(10).description, scenario.day(11).description])
        #expect(days.map(\.impressions) == [2, 2])
        #expect(days.map(\.uniqueImpressions) == [1, 2])
    }

    @Test("A campaign's own time zone overrides the app's for its report days")
    func campaignTimeZoneOverride() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(reportTimeZone: .set("UTC")))
        try scenario.write([
            event(.impression, at: scenario.time(9, "23:59:59"), user: "u1"),  // UTC day 9: out
            event(.impression, at: scenario.time(10, "14:59:59"), user: "u1"), // UTC day 10
            event(.impression, at: scenario.time(10, "15:00:00"), user: "u1"), // UTC day 10 (Tokyo would say 11)
            event(.impression, at: scenario.time(11, "15:00:00"), user: "u2"), // UTC day 11
            event(.impression, at: scenario.time(12, "00:00:00"), user: "u2"), // UTC day 12: out
        ])
        let row = try #require(try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(10, 11)).first)
        #expect(row.impressions == 3)
        // Day 10: {u1}; day 11: {u2}.
        #expect(row.uniqueDailyImpressions == 2)
    }

    @Test("Control impressions and control sends are not impressions or recipients; push recipients are sends")
    func controlAndPush() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2", variant: nil, control: true),
            event(.send, at: scenario.time(10, "00:30"), user: "u3", variant: nil, control: true),
            // Push campaign p1: sends to u1 and u2 on day 10 and to u1 again on day 11 (Tokyo days), one open.
            event(.send, .push, at: scenario.time(10, "01:00"), user: "u1", campaign: "p1", variant: nil),
            event(.send, .push, at: scenario.time(10, "01:00"), user: "u2", campaign: "p1", variant: nil),
            event(.send, .push, at: scenario.time(11, "01:00"), user: "u1", campaign: "p1", variant: nil),
            event(.click, .push, at: scenario.time(11, "02:00"), user: "u1", campaign: "p1", variant: nil),
        ])
        let rows = try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(10, 11))
        // c1 has only its variant row: the control impression and control send are left out entirely.
        #expect(rows.map(\.campaignID) == ["c1", "p1"])
        let card = rows[0]
        #expect(card.variantID == "v1")
        #expect(card.impressions == 1)
        #expect(card.uniqueImpressions == 1)
        #expect(card.uniqueRecipients == 1)
        let push = rows[1]
        #expect(push.impressions == 0)
        // Day 10: {u1, u2}; day 11: {u1}.
        #expect(push.uniqueRecipients == 3)
        #expect(push.clicks == 1)
        #expect(push.uniqueClicks == 1)
        // No impressions: the click rates are undefined, not 0 and not infinite; the dismissal rates are over the
        // 3 recipients, and nobody dismissed.
        #expect(push.clickRate == nil)
        #expect(push.uniqueClickRate == nil)
        #expect(push.dismissalRate == 0)
        #expect(push.uniqueDismissalRate == 0)
    }

    @Test("Test events count only with include_test, and a breakdown by platform splits the rows")
    func testEventsAndPlatformBreakdown() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", platform: .ios),
            event(.impression, at: scenario.time(10, "01:00"), user: "u2", platform: .android),
            event(.impression, at: scenario.time(10, "01:00"), user: "tester", platform: .android, test: true),
        ])
        let query = UniqueImpressionsQuery(connection: scenario.connection)
        #expect(try query.run(scenario.scope(10, 10)).first?.uniqueImpressions == 2)
        #expect(try query.run(scenario.scope(10, 10, includeTest: true)).first?.uniqueImpressions == 3)
        let platforms = try query.run(scenario.scope(10, 10), by: .platform)
        #expect(platforms.map(\.breakdown) == ["android", "ios"])
        #expect(platforms.map(\.uniqueImpressions) == [1, 1])
    }

    @Test("A canvas step is a row of its own, keyed by canvas and step, and a campaign filter leaves it out")
    func canvasSteps() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var stepImpression = event(.impression, .inAppMessage, at: scenario.time(10, "01:00"), user: "u1", variant: nil)
        stepImpression.source = .canvas(id: "onboarding", stepID: "step-2")
        var stepClick = event(.click, .inAppMessage, at: scenario.time(10, "01:01"), user: "u1", variant: nil)
        stepClick.source = .canvas(id: "onboarding", stepID: "step-2")
        try scenario.write([stepImpression, stepClick, event(.impression, at: scenario.time(10, "01:00"), user: "u2")])
        let query = UniqueImpressionsQuery(connection: scenario.connection)
        let rows = try query.run(scenario.scope(10, 10))
        // Ordered by campaign id with NULLs (the canvas step) last.
        #expect(rows.map(\.campaignID) == ["c1", nil])
        let step = try #require(rows.last)
        #expect((step.canvasID, step.canvasStepID, step.channel) == ("onboarding", "step-2", "in_app_message"))
        #expect((step.impressions, step.clicks, step.uniqueClickRate) == (1, 1, 1))
        #expect(try query.run(scenario.scope(10, 10, campaign: "c1")).map(\.campaignID) == ["c1"])
    }

    @Test("A range that ends before it starts, or an unknown breakdown, is refused with SQLSTATE 22023")
    func invalidArguments() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let backwards = #expect(throws: PostgresError.self) {
            try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(11, 10))
        }
        #expect(backwards?.sqlState == .invalidParameterValue)
        let unknown = #expect(throws: PostgresError.self) {
            try scenario.connection.query(
                "select * from cardinal.unique_impressions('shop', current_date, current_date, by => 'week')"
            )
        }
        #expect(unknown?.sqlState == .invalidParameterValue)
    }

    @Test("The reader role can call every report function and read the report views")
    func readerRole() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1")])
        try scenario.connection.execute("set role cardinal_reader")
        let from = scenario.day(10)
        #expect(try scenario.connection.query(
            "select * from cardinal.unique_impressions('shop', $1, $1)", [from]).count == 1)
        #expect(try scenario.connection.query("select * from cardinal.anomalies('shop', $1, $1)", [from]).isEmpty)
        #expect(try scenario.connection.query(
            "select * from cardinal.control_arms('shop', null, $1, $1)", [from]).count == 1)
        #expect(try scenario.connection.query("select * from cardinal.latest_control").isEmpty)
        let write = #expect(throws: PostgresError.self) {
            try scenario.connection.execute("insert into cardinal.report_runs (parameters) values ('{}')")
        }
        #expect(write?.sqlState == .insufficientPrivilege)
    }
}
