import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// report_campaign_receipts: the per-recipient rows campaign_conversions reads, kept by the fold and by the
/// triggers on the conversion goals.
@Suite struct CampaignReceiptsTests {
    @Test("Conversion goals set or changed after the events were folded count as the reference counts them")
    func goalsChangedAfterFolding() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(conversionWindow: .set(try ConversionWindow(parsing: "3d"))))
        // Times are UTC before 15:00, so each lies on the Tokyo report day of the same number.
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u2"),
            event(.impression, at: scenario.time(11, "01:00"), user: "u3"),
            conversion("purchase", at: scenario.time(11, "02:00"), user: "u1", value: 10, currency: "USD"),
            conversion("signup", at: scenario.time(10, "03:00"), user: "u2"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        // No goal yet: the report has no rows for the campaign.
        #expect(try scenario.session.campaignConversions(scenario.scope(10, 30)).isEmpty)

        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("purchase"),
                                                           furtherConversionEvents: .set(["signup"])))
        // Three recipients, one day each. purchase: u1, a day after its impression, 10 USD; signup: u2.
        let both = try scenario.session.campaignConversions(scenario.scope(10, 30))
        #expect(both.map(\.conversionEvent) == ["purchase", "signup"])
        #expect(both.map(\.uniqueRecipients) == [3, 3])
        #expect(both.map(\.converters) == [1, 1])
        #expect(both[0].revenue.compactMap { Decimal(string: $0.amount) } == [10])
        #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)

        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("signup"),
                                                           furtherConversionEvents: .set([])))
        // signup alone, now the primary: u2 converts, no revenue.
        let signup = try scenario.session.campaignConversions(scenario.scope(10, 30))
        #expect(signup.map(\.conversionEvent) == ["signup"])
        #expect(signup.map(\.converters) == [1])
        #expect(signup[0].revenue.isEmpty)
        #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
    }

    @Test("A late receipt earlier than the first one moves the first receipt back and makes an older conversion count")
    func lateEarlierReceipt() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d"))
        ))
        try scenario.write([
            event(.impression, at: scenario.time(12, "01:00"), user: "u1"),
            conversion("purchase", at: scenario.time(11, "02:00"), user: "u1", value: 5, currency: "USD"),
        ])
        let store = ReportStateStore(connection: scenario.connection)
        _ = try store.fold()
        // The purchase on day 11 precedes the only receipt (day 12): one recipient, no converter.
        let before = try scenario.session.campaignConversions(scenario.scope(10, 30))
        #expect(before.map(\.uniqueRecipients) == [1])
        #expect(before.map(\.converters) == [0])

        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1")])
        // Pending and folded alike: u1 received on days 10 and 12 (2 recipient-days); first receipt on day 10,
        // so the purchase a day later is within 3 days: 1 converter, 5 USD.
        for _ in 0..<2 {
            let rows = try scenario.session.campaignConversions(scenario.scope(10, 30))
            #expect(rows.map(\.uniqueRecipients) == [2])
            #expect(rows.map(\.converters) == [1])
            #expect(rows[0].revenue.compactMap { Decimal(string: $0.amount) } == [5])
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
            _ = try store.fold()
        }
        let row = try scenario.connection.query(
            """
            select first_received_at = $1, received_days::text, converted_at[1] = $2
            from cardinal.report_campaign_receipts
            """,
            [scenario.time(10, "01:00"), scenario.time(11, "02:00")]
        ).map { "\(try $0.decode(Bool.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(Bool.self, at: 2))" }
        #expect(row == ["true {\(scenario.day(10)),\(scenario.day(12))} true"])
    }

    /// A banner campaign `b` and a feature-flag campaign `f` converting on purchase within 3 days. u1 sees both
    /// on day 10 and buys on day 11 (7 USD); u2 sees the banner on day 11 and buys nothing; u3 sees the flag
    /// on day 12 and buys on day 16, past the window; u4 is only sent the banner (a backend's send, never shown).
    private func writeBannerAndFlag(_ scenario: ReportScenario) throws {
        for campaign in ["b", "f"] {
            try scenario.settings(campaign, CampaignSettingsUpdate(
                conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d"))
            ))
        }
        try scenario.write([
            event(.impression, .banner, at: scenario.time(10, "01:00"), user: "u1", campaign: "b", placement: "p1"),
            event(.impression, .featureFlag, at: scenario.time(10, "01:00"), user: "u1", campaign: "f"),
            conversion("purchase", at: scenario.time(11, "02:00"), user: "u1", value: 7, currency: "USD"),
            event(.impression, .banner, at: scenario.time(11, "01:00"), user: "u2", campaign: "b", placement: "p1"),
            event(.impression, .featureFlag, at: scenario.time(12, "01:00"), user: "u3", campaign: "f"),
            conversion("purchase", at: scenario.time(16, "02:00"), user: "u3", value: 9, currency: "USD"),
            event(.send, .banner, at: scenario.time(10, "01:00"), user: "u4", campaign: "b", placement: "p1"),
        ])
    }

    /// The banner's and the flag's rows as "campaign recipients converters revenue-in-USD".
    private static func bannerAndFlagRows(_ scenario: ReportScenario) throws -> [String] {
        try scenario.session.campaignConversions(scenario.scope(10, 30))
            .filter { ["b", "f"].contains($0.campaignID) }
            .map { row in
                let usd = row.revenue.first { $0.currency == "USD" }.flatMap { Decimal(string: $0.amount) }
                return "\(row.campaignID) \(row.uniqueRecipients) \(row.converters) \(usd.map { "\($0)" } ?? "-")"
            }
    }

    @Test("A banner or feature flag is received when it is shown, so its campaign has recipients and converters")
    func bannerAndFlagReceiptsAreImpressions() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeBannerAndFlag(scenario)
        // b: u1 and u2 shown it (u4's send is no receipt), u1 converts with 7 USD. f: u1 and u3, u1 converts.
        try scenario.beforeAndAfterFold { folded throws in
            #expect(try Self.bannerAndFlagRows(scenario) == ["b 2 1 7", "f 2 1 7"], "folded: \(folded)")
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0,
                    "folded: \(folded)")
        }
    }

    @Test("Migration 0099 queues the banner and flag campaigns again, so receipts folded by send are counted anew")
    func migrationRequeuesBannerReceiptsFoldedBySend() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeBannerAndFlag(scenario)
        let store = ReportStateStore(connection: scenario.connection)
        _ = try store.fold()
        // What a fold before 0099 kept: u4's send was a receipt of the banner.
        _ = try scenario.connection.query(
            """
            insert into cardinal.report_campaign_receipts
                (app_id, campaign_id, variant_key, user_key, first_received_at, received_days, converted_at)
            values ($1, 'b', 'v1', 'u4', $2, array[$3::date], '{null, null, null, null}')
            """,
            [scenario.app.id, scenario.time(10, "01:00"), scenario.day(10)]
        )
        #expect(try Self.bannerAndFlagRows(scenario) == ["b 3 1 7", "f 2 1 7"])

        _ = try scenario.connection.query("delete from cardinal.schema_migrations where version = 99")
        try TestDatabase.migrator(for: scenario.connection).migrate()
        try scenario.beforeAndAfterFold { folded throws in
            #expect(try Self.bannerAndFlagRows(scenario) == ["b 2 1 7", "f 2 1 7"], "folded: \(folded)")
            #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0,
                    "folded: \(folded)")
        }
    }
}
