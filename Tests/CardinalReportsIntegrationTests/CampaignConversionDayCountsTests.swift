import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// The counts per report day that campaign_conversions reads: kept equal to an aggregate of
/// report_campaign_receipts by its triggers, adjusted for the pending events by the report, and the conversion
/// window on the campaign's clock.
@Suite struct CampaignConversionDayCountsTests {
    /// The three count tables computed straight from report_campaign_receipts, as the triggers must keep them.
    private static let countsFromReceipts = """
        insert into cardinal.report_campaign_receipt_days
        select r.app_id, r.campaign_id, r.variant_key, d.day, count(*)
        from cardinal.report_campaign_receipts as r
        cross join lateral unnest(r.received_days) as d (day)
        group by 1, 2, 3, 4;

        insert into cardinal.report_campaign_cohort_days
        select r.app_id, r.campaign_id, r.variant_key, r.received_days[1], g.ordinal, count(*)
        from cardinal.report_campaign_receipts as r
        cross join lateral jsonb_array_elements(r.window_revenue) with ordinality as g (outcome, ordinal)
        where jsonb_typeof(g.outcome) = 'object'
        group by 1, 2, 3, 4, 5;

        insert into cardinal.report_campaign_cohort_revenue
        select r.app_id, r.campaign_id, r.variant_key, r.received_days[1], g.ordinal, m.key, sum(m.value::numeric),
               count(*)
        from cardinal.report_campaign_receipts as r
        cross join lateral jsonb_array_elements(r.window_revenue) with ordinality as g (outcome, ordinal)
        cross join lateral jsonb_each(case when jsonb_typeof(g.outcome) = 'object' then g.outcome end) as m
        group by 1, 2, 3, 4, 5, 6;
        """

    /// The three count tables, one line a row, sorted.
    private static func counts(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            """
            select line from (
                select format('days %s %s %s %s', campaign_id, variant_key, day, recipients) as line
                from cardinal.report_campaign_receipt_days
                union all
                select format('cohort %s %s %s %s %s', campaign_id, variant_key, first_day, ordinal, converters)
                from cardinal.report_campaign_cohort_days
                union all
                select format('revenue %s %s %s %s %s %s %s', campaign_id, variant_key, first_day, ordinal, currency,
                              amount, converters)
                from cardinal.report_campaign_cohort_revenue
            ) as lines
            order by line
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// Count rows that differ, both ways, between the tables the triggers keep and ``countsFromReceipts``,
    /// computed inside a transaction that is rolled back.
    private static func countsDifferingFromFill(_ scenario: ReportScenario) throws -> Int64 {
        let fill = countsFromReceipts
        try scenario.connection.executeScript("begin")
        defer { _ = try? scenario.connection.executeScript("rollback") }
        try scenario.connection.execute(
            """
            create temporary table kept on commit drop as
            select 'days' as kind, format('%s', d) as line from cardinal.report_campaign_receipt_days as d
            union all
            select 'cohort', format('%s', c) from cardinal.report_campaign_cohort_days as c
            union all
            select 'revenue', format('%s', v) from cardinal.report_campaign_cohort_revenue as v
            """
        )
        try scenario.connection.execute("delete from cardinal.report_campaign_receipt_days")
        try scenario.connection.execute("delete from cardinal.report_campaign_cohort_days")
        try scenario.connection.execute("delete from cardinal.report_campaign_cohort_revenue")
        try scenario.connection.executeScript(fill)
        return try scenario.connection.query(
            """
            with filled as (
                select 'days' as kind, format('%s', d) as line from cardinal.report_campaign_receipt_days as d
                union all
                select 'cohort', format('%s', c) from cardinal.report_campaign_cohort_days as c
                union all
                select 'revenue', format('%s', v) from cardinal.report_campaign_cohort_revenue as v
            )
            select count(*) from (
                (select * from kept except all select * from filled)
                union all
                (select * from filled except all select * from kept)) as differing
            """
        ).first?.decode(Int64.self, at: 0) ?? -1
    }

    /// Rows of campaign_conversions and of its reference over raw events that the other lacks, both ways.
    private static func differencesFromReference(
        _ scenario: ReportScenario, _ from: ReportDate, _ to: ReportDate, includeTest: Bool = false
    ) throws -> Int64 {
        try scenario.connection.query(
            """
            select count(*) from (
                (select * from cardinal.campaign_conversions('shop', $1, $2, null, $3)
                 except all
                 select * from cardinal.campaign_conversions_reference('shop', $1, $2, null, $3))
                union all
                (select * from cardinal.campaign_conversions_reference('shop', $1, $2, null, $3)
                 except all
                 select * from cardinal.campaign_conversions('shop', $1, $2, null, $3))) as differing
            """,
            [from, to, includeTest]
        ).first?.decode(Int64.self, at: 0) ?? -1
    }

    /// Three recipients of c1 with purchases and a signup, folded; the window is 3 days. Times are UTC before
    /// 15:00, so each lies on the Tokyo report day of the same number.
    private static func foldedRecipients() throws -> ReportScenario {
        let scenario = try ReportScenario()
        do {
            try scenario.settings("c1", CampaignSettingsUpdate(
                conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d")),
                furtherConversionEvents: .set(["signup"])
            ))
            try scenario.write([
                event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
                event(.impression, at: scenario.time(12, "01:00"), user: "u1"),
                conversion("purchase", at: scenario.time(11, "02:00"), user: "u1", value: 10, currency: "USD"),
                event(.impression, at: scenario.time(10, "02:00"), user: "u2"),
                conversion("purchase", at: scenario.time(12, "03:00"), user: "u2", value: 4, currency: "EUR"),
                conversion("signup", at: scenario.time(10, "03:00"), user: "u2"),
                event(.impression, at: scenario.time(11, "01:00"), user: "u3", variant: "v2"),
            ])
            _ = try ReportStateStore(connection: scenario.connection).fold()
        } catch {
            scenario.drop()
            throw error
        }
        return scenario
    }

    @Test("The counts are an aggregate of the per-recipient rows after folds, goal and window changes and erasure")
    func countsFollowTheRows() throws {
        let scenario = try Self.foldedRecipients()
        defer { scenario.drop() }
        let (d10, d11, d12) = (scenario.day(10), scenario.day(11), scenario.day(12))
        // Receipt days: v1 on day 10 u1 and u2, on day 12 u1; v2 on day 11 u3. Both v1 recipients are first
        // reached on day 10 and purchase within 3 days (u1 a day later, u2 two days and an hour later, before
        // its window ends at day 13 02:00); u2 signs up an hour after its impression.
        #expect(try Self.counts(scenario) == [
            "cohort c1 v1 \(d10) 1 2",
            "cohort c1 v1 \(d10) 2 1",
            "days c1 v1 \(d10) 2",
            "days c1 v1 \(d12) 1",
            "days c1 v2 \(d11) 1",
            "revenue c1 v1 \(d10) 1 EUR 4 1",
            "revenue c1 v1 \(d10) 1 USD 10 1",
        ])
        #expect(try Self.countsDifferingFromFill(scenario) == 0)

        // Without signup as a goal its count goes.
        try scenario.settings("c1", CampaignSettingsUpdate(furtherConversionEvents: .set([])))
        #expect(try Self.counts(scenario).filter { $0.hasPrefix("cohort") } == ["cohort c1 v1 \(d10) 1 2"])
        #expect(try Self.countsDifferingFromFill(scenario) == 0)

        // Erasing u2 takes its day-10 receipt, its purchase and its EUR.
        let appID = scenario.app.id
        _ = try IdentityEraser(connection: scenario.connection).erase(ErasureTarget(kind: .user, id: "u2"), appID: appID)
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try Self.counts(scenario) == [
            "cohort c1 v1 \(d10) 1 1",
            "days c1 v1 \(d10) 1",
            "days c1 v1 \(d12) 1",
            "days c1 v2 \(d11) 1",
            "revenue c1 v1 \(d10) 1 USD 10 1",
        ])
        #expect(try Self.countsDifferingFromFill(scenario) == 0)

        // A window of 12 hours ends before u1's purchase 25 hours after its impression: no converter is left.
        try scenario.settings("c1", CampaignSettingsUpdate(conversionWindow: .set(try ConversionWindow(parsing: "12h"))))
        #expect(try Self.counts(scenario) == ["days c1 v1 \(d10) 1", "days c1 v1 \(d12) 1", "days c1 v2 \(d11) 1"])
        #expect(try Self.countsDifferingFromFill(scenario) == 0)
        #expect(try Self.differencesFromReference(scenario, d10, d12) == 0)
    }

    @Test("A range that cuts a campaign's days counts the recipients of its days and the cohort first reached in it")
    func rangeCutsTheDays() throws {
        let scenario = try Self.foldedRecipients()
        defer { scenario.drop() }
        // Days 11–12: v1 has u1 on day 12 (1 recipient), first reached on day 10, so no cohort; v2 has u3 on
        // day 11, first reached then, without conversions.
        let cut = try scenario.session.campaignConversions(scenario.scope(11, 12))
        #expect(cut.map { "\($0.variantID ?? "-") \($0.conversionEvent) \($0.uniqueRecipients) \($0.converters)" } == [
            "v1 purchase 1 0", "v1 signup 1 0", "v2 purchase 1 0", "v2 signup 1 0",
        ])
        // Day 10 alone: v1's u1 and u2, both purchased (10 USD and 4 EUR), u2 signed up; v2 has no receipt.
        let first = try scenario.session.campaignConversions(scenario.scope(10, 10))
        #expect(first.map { "\($0.variantID ?? "-") \($0.conversionEvent) \($0.uniqueRecipients) \($0.converters)" } == [
            "v1 purchase 2 2", "v1 signup 2 1",
        ])
        #expect(first[0].revenue.map { "\($0.currency) \($0.amount)" }.sorted() == ["EUR 4", "USD 10"])
        #expect(try Self.differencesFromReference(scenario, scenario.day(11), scenario.day(12)) == 0)
        #expect(try Self.differencesFromReference(scenario, scenario.day(10), scenario.day(10)) == 0)
    }

    @Test("A pending receipt earlier than the folded first one moves the recipient's cohort day, pending and folded")
    func pendingEarlierReceiptMovesTheCohortDay() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d"))
        ))
        try scenario.write([
            event(.impression, at: scenario.time(12, "01:00"), user: "u1"),
            conversion("purchase", at: scenario.time(12, "02:00"), user: "u1", value: 5, currency: "USD"),
        ])
        let store = ReportStateStore(connection: scenario.connection)
        _ = try store.fold()
        let summary: ([CampaignConversionRow]) -> [String] = { rows in
            rows.map { row in
                "\(row.uniqueRecipients) \(row.converters) "
                    + row.revenue.map { "\($0.currency) \($0.amount)" }.joined(separator: ",")
            }
        }
        // First reached on day 12, purchase an hour later: day 12 has the recipient and the converter.
        #expect(summary(try scenario.session.campaignConversions(scenario.scope(12, 12))) == ["1 1 USD 5"])
        #expect(try scenario.session.campaignConversions(scenario.scope(10, 11)).isEmpty)

        // A late impression on day 10: u1 is first reached on day 10, and the purchase two days and an hour
        // later is within 3 days, so the converter moves to day 10; day 12 keeps the recipient, not the cohort.
        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1")])
        for _ in 0..<2 {
            #expect(summary(try scenario.session.campaignConversions(scenario.scope(12, 12))) == ["1 0 "])
            #expect(summary(try scenario.session.campaignConversions(scenario.scope(10, 11))) == ["1 1 USD 5"])
            #expect(try Self.differencesFromReference(scenario, scenario.day(10), scenario.day(12)) == 0)
            _ = try store.fold()
        }
        #expect(try Self.counts(scenario) == [
            "cohort c1 v1 \(scenario.day(10)) 1 1",
            "days c1 v1 \(scenario.day(10)) 1",
            "days c1 v1 \(scenario.day(12)) 1",
            "revenue c1 v1 \(scenario.day(10)) 1 USD 5 1",
        ])
    }

    @Test("A window across a daylight-saving change counts the same converters whatever the session's time zone")
    func windowOnTheCampaignsClock() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // Berlin's most recent change at least 86 days back (there is one every 7 months at most), well within
        // the retention.
        let change = try #require(berlin.nextDaylightSavingTimeTransition(after: Date().addingTimeInterval(-300 * 86_400)))
        // Three local days from noon UTC before the change last 72 hours minus the hour the change skips, or
        // plus the hour it repeats.
        let shift = berlin.secondsFromGMT(for: change.addingTimeInterval(3_600))
            - berlin.secondsFromGMT(for: change.addingTimeInterval(-3_600))
        let windowHours = 72.0 - Double(shift) / 3_600
        let received = change.addingTimeInterval(-12 * 3_600)
        // The purchase half an hour before the window ends where it is 73 hours (converted), half an hour
        // after where it is 71 (not); a window of 72 hours, added in UTC, would say the opposite.
        let converted = windowHours > 72
        let purchase = received.addingTimeInterval((converted ? 72.5 : 71.5) * 3_600)
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d")),
            reportTimeZone: .set("Europe/Berlin")
        ))
        try scenario.write([
            event(.impression, at: received, user: "u1"),
            conversion("purchase", at: purchase, user: "u1"),
        ])
        let from = ReportDate(utcDayOf: received).adding(days: -1)
        let to = from.adding(days: 7)
        let scope = ReportScope(app: ReportScenario.appName, campaign: nil, from: from, to: to, includeTest: false)
        let withTest = ReportScope(app: ReportScenario.appName, campaign: nil, from: from, to: to, includeTest: true)
        let store = ReportStateStore(connection: scenario.connection)
        for folded in [false, true] {
            if folded {
                _ = try store.fold()
            }
            for session in ["UTC", "Europe/Berlin", "Asia/Tokyo"] {
                try scenario.connection.execute("set time zone '\(session)'", [])
                #expect(try scenario.session.campaignConversions(scope).map(\.converters) == [converted ? 1 : 0],
                        "session \(session), folded \(folded)")
                #expect(try scenario.session.campaignConversions(withTest).map(\.converters) == [converted ? 1 : 0],
                        "session \(session), folded \(folded), test events included")
                #expect(try Self.differencesFromReference(scenario, from, to) == 0)
                #expect(try Self.differencesFromReference(scenario, from, to, includeTest: true) == 0)
            }
        }
    }

    @Test("Refreshing every campaign's outcomes and counting them again makes what the fold and the triggers made")
    func refreshEqualsTheTriggers() throws {
        let scenario = try Self.foldedRecipients()
        defer { scenario.drop() }
        let outcomes = """
            select cardinal.refresh_campaign_receipt_conversions(ge.app_id, ge.campaign_id)
            from cardinal.campaign_conversion_goal_events as ge
            order by ge.app_id, ge.campaign_id
            """
        let differing = try scenario.connection.transaction { connection in
            try connection.execute("create temporary table folded on commit drop as "
                                   + "select * from cardinal.report_campaign_receipts", [])
            // Outcomes forgotten (the triggers take them out of the counts), then filled again.
            try connection.execute("update cardinal.report_campaign_receipts set window_revenue = default")
            try connection.executeScript(outcomes)
            return try connection.query(
                """
                select (select count(*) from folded where window_revenue <> '[null, null, null, null]'),
                       (select count(*) from (
                           (select * from folded except all select * from cardinal.report_campaign_receipts)
                           union all
                           (select * from cardinal.report_campaign_receipts except all select * from folded)) as d)
                """
            ).first.map { [try $0.decode(Int64.self, at: 0), try $0.decode(Int64.self, at: 1)] }
        }
        // u1 and u2 have outcomes (purchases, u2's signup); u3 none.
        #expect(differing == [2, 0])
        #expect(try Self.countsDifferingFromFill(scenario) == 0)
    }
}
