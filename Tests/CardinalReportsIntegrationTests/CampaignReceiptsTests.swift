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
    /// Rows of campaign_conversions and of its reference over raw events that the other lacks, both ways.
    private static func differencesFromReference(_ scenario: ReportScenario, _ from: Int, _ to: Int) throws -> Int64 {
        try scenario.connection.query(
            """
            select count(*) from (
                (select * from cardinal.campaign_conversions('shop', $1, $2)
                 except all
                 select * from cardinal.campaign_conversions_reference('shop', $1, $2))
                union all
                (select * from cardinal.campaign_conversions_reference('shop', $1, $2)
                 except all
                 select * from cardinal.campaign_conversions('shop', $1, $2))) as differing
            """,
            [scenario.day(from), scenario.day(to)]
        ).first?.decode(Int64.self, at: 0) ?? -1
    }

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
        #expect(try Self.differencesFromReference(scenario, 10, 30) == 0)

        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("signup"),
                                                           furtherConversionEvents: .set([])))
        // signup alone, now the primary: u2 converts, no revenue.
        let signup = try scenario.session.campaignConversions(scenario.scope(10, 30))
        #expect(signup.map(\.conversionEvent) == ["signup"])
        #expect(signup.map(\.converters) == [1])
        #expect(signup[0].revenue.isEmpty)
        #expect(try Self.differencesFromReference(scenario, 10, 30) == 0)
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
            #expect(try Self.differencesFromReference(scenario, 10, 30) == 0)
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
}
