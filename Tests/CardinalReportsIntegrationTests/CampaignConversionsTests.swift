import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite struct CampaignConversionsTests {
    /// c1 (content cards, variant v1) with purchase as primary and signup as second conversion event, 3 days.
    /// Times are UTC before 15:00, so each lies on the Tokyo report day of the same number.
    private static func scenario() throws -> ReportScenario {
        let scenario = try ReportScenario()
        try scenario.settings("c1", CampaignSettingsUpdate(
            conversionEvent: .set("purchase"), conversionWindow: .set(try ConversionWindow(parsing: "3d")),
            furtherConversionEvents: .set(["signup"])
        ))
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(11, "01:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "00:30"), user: "u2"),
            event(.impression, at: scenario.time(12, "01:00"), user: "u3"),
            event(.impression, at: scenario.time(5, "01:00"), user: "u4"),
            event(.impression, at: scenario.time(13, "01:00"), user: "u4"),
            event(.impression, at: scenario.time(10, "01:00"), user: "u5", variant: nil, control: true),
        ])
        // Half the events folded, half not: the report must add both.
        _ = try ReportStateStore(connection: scenario.connection).fold()
        try scenario.write([
            // u1: 10 USD a day after the first impression counts; 5 USD on day 20 is past the 3 days.
            conversion("purchase", at: scenario.time(11, "02:00"), user: "u1", value: 10, currency: "USD"),
            conversion("purchase", at: scenario.time(20, "01:00"), user: "u1", value: 5, currency: "USD"),
            conversion("signup", at: scenario.time(10, "03:00"), user: "u1"),
            // u2: both purchases within the window, in euros: 9.5 EUR.
            conversion("purchase", at: scenario.time(12, "00:00"), user: "u2", value: 7.5, currency: "EUR"),
            conversion("purchase", at: scenario.time(10, "01:00"), user: "u2", value: 2, currency: "EUR"),
            // u4 was first reached on day 5, before the range: its purchase belongs to an earlier cohort.
            conversion("purchase", at: scenario.time(13, "02:00"), user: "u4", value: 100, currency: "USD"),
            // u5 is in the control group: never a recipient.
            conversion("purchase", at: scenario.time(10, "02:00"), user: "u5", value: 50, currency: "USD"),
        ])
        return scenario
    }

    @Test("Converters, conversion rate and revenue per currency match the numbers worked out by hand")
    func handComputedNumbers() throws {
        let scenario = try Self.scenario()
        defer { scenario.drop() }
        let rows = try scenario.session.campaignConversions(scenario.scope(10, 30))
        // Recipients per day: u1 on days 10 and 11, u2, u3 and u4 one day each: 5. Converters of purchase:
        // u1 and u2 (u4's cohort is earlier, u5 is control): 2 / 5 = 0.4. Revenue: 10 USD, 2 + 7.5 = 9.5 EUR;
        // per recipient 2 USD and 1.9 EUR. signup: u1 alone, 1 / 5, no value.
        #expect(rows.map(\.conversionEvent) == ["purchase", "signup"])
        #expect(rows.map(\.ordinal) == [1, 2])
        #expect(rows.map(\.variantID) == ["v1", "v1"])
        #expect(rows.map(\.uniqueRecipients) == [5, 5])
        #expect(rows.map(\.converters) == [2, 1])
        #expect(rows.map(\.conversionRate) == [0.4, 0.2])
        #expect(rows[0].revenue.map(\.currency) == ["EUR", "USD"])
        #expect(rows[0].revenue.compactMap { Decimal(string: $0.amount) } == [9.5, 10])
        #expect(rows[0].revenuePerRecipient.compactMap { Decimal(string: $0.amount) } == [1.9, 2])
        #expect(rows[1].revenue.isEmpty)
    }

    @Test("Folding the rest changes no number, and the reference over raw events agrees")
    func foldedEqualsUnfoldedAndReference() throws {
        let scenario = try Self.scenario()
        defer { scenario.drop() }
        let before = try scenario.session.campaignConversions(scenario.scope(10, 30))
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try scenario.session.campaignConversions(scenario.scope(10, 30)) == before)
        #expect(try scenario.differencesFromReference("campaign_conversions", from: 10, to: 30) == 0)
    }

    @Test("Each conversion event appears in the control comparison with its own converters")
    func controlArmsPerConversionEvent() throws {
        let scenario = try Self.scenario()
        defer { scenario.drop() }
        let rows = try scenario.connection.query(
            """
            select ordinal, conversion_event, control, users, converters
            from cardinal.control_arm_conversions('shop', 'c1', $1, $2, $3)
            """,
            [scenario.day(10), scenario.day(30), scenario.time(40, "00:00")]
        ).map { row in
            "\(try row.decode(Int16.self, at: 0)) \(try row.decode(String.self, at: 1)) "
                + "\(try row.decode(Bool.self, at: 2)) \(try row.decode(Int64.self, at: 3)) "
                + "\(try row.decode(Int64.self, at: 4))"
        }
        // Control: u5, who bought within the window; v1: u1, u2, u3 (u4 exposed on day 5, earlier).
        #expect(rows == ["1 purchase true 1 1", "1 purchase false 3 2", "2 signup true 1 0", "2 signup false 3 1"])
    }

    @Test("The unique-impressions report's JSON gains a conversions member and keeps its rows")
    func reportJSONHasConversions() throws {
        let scenario = try Self.scenario()
        defer { scenario.drop() }
        let report = try UniqueImpressionsReport.run(session: scenario.session, scope: scenario.scope(10, 30))
        let json = report.render(.json)
        #expect(json.contains(#""rows":[{"app":"shop","campaign_id":"c1""#))
        #expect(json.contains(#""conversion_event":"purchase","window_seconds":259200,"unique_recipients":5,"#
                              + #""converters":2,"conversion_rate":0.4,"revenue":{"EUR":9.5,"USD":10}"#))
        #expect(report.render(.table).contains("Conversions"))
    }
}
