import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// `cardinal.control_arm_days`, the campaign page's lift series: each report day's arms as the control report
/// read at the end of that day. The scenario's app reports in Asia/Tokyo (UTC+9): Tokyo day N runs from day
/// N−1 15:00 UTC to day N 15:00 UTC.
@Suite struct ControlArmDaysTests {
    /// As of day 13 06:00 UTC (Tokyo day 13 15:00): the series of days 10–14 stops at Tokyo day 13.
    private static let asOfClock = (day: 13, clock: "06:00")

    /// Folded first: u1–u4 of c1 under a 1-day purchase window.
    private func writeFolded(_ scenario: ReportScenario) throws {
        try scenario.settings("c1", CampaignSettingsUpdate(conversionEvent: .set("purchase"),
                                                           conversionWindow: .set(try ConversionWindow(parsing: "1d"))))
        try scenario.write([
            // u1 (v1), Tokyo day 10 10:00: the window ends Tokyo day 11 10:00, matured on day 11; bought.
            event(.impression, at: scenario.time(10, "01:00"), user: "u1"),
            event(.conversion, at: scenario.time(10, "05:00"), user: "u1", conversion: "purchase"),
            // u2 (control), Tokyo day 10 11:00: matured on day 11; bought nothing.
            event(.impression, at: scenario.time(10, "02:00"), user: "u2", variant: nil, control: true),
            // u3 (control), Tokyo day 11 12:00: matured on day 12; bought an hour later.
            event(.impression, at: scenario.time(11, "03:00"), user: "u3", variant: nil, control: true),
            event(.conversion, at: scenario.time(11, "04:00"), user: "u3", conversion: "purchase"),
            // u4 (v1) at Tokyo day 11 00:00 sharp: the window ends at Tokyo day 12 00:00, the very end of day
            // 11, so u4 has matured by then; bought at Tokyo day 11 23:00, within it.
            event(.impression, at: scenario.time(10, "15:00"), user: "u4"),
            event(.conversion, at: scenario.time(11, "14:00"), user: "u4", conversion: "purchase"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
    }

    /// Left pending: u5 meets a second arm, u6 converts only once its device merges into it, u7 is too late.
    private func writePending(_ scenario: ReportScenario) throws {
        try scenario.write([
            // u5 (v1), Tokyo day 11 10:00, then a control impression on Tokyo day 12 10:00, the day its window
            // ends: exposed on day 11, in two arms from day 12 on, never a matured user.
            event(.impression, at: scenario.time(11, "01:00"), user: "u5"),
            event(.impression, at: scenario.time(12, "01:00"), user: "u5", variant: nil, control: true),
            // Device d6 (v1), Tokyo day 12 10:00, anonymous; logs in as the new user u6 and buys at Tokyo day
            // 12 14:00: merged, u6 is a v1 user who converted. The window ends day 13 01:00 UTC, before as_of.
            event(.impression, at: scenario.time(12, "01:00"), device: "d6"),
            event(.conversion, at: scenario.time(12, "05:00"), user: "u6", device: "d6", conversion: "purchase"),
            // u7 (control), Tokyo day 13 05:00: its window ends after as_of; exposed only.
            event(.impression, at: scenario.time(12, "20:00"), user: "u7", variant: nil, control: true),
        ])
    }

    /// c1's series as "day arm users converters" lines, the days as the scenario's day numbers.
    private func series(_ scenario: ReportScenario, includeTest: Bool = false, reference: Bool = false) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s %s', day - $7::date, case when control then 'control' else variant_id end, users,
                          converters)
            from cardinal.control_arm_days($1, 'c1', $2, $3, $4, $5, $6)
            """,
            [ReportScenario.appName, scenario.day(10), scenario.day(14),
             scenario.time(Self.asOfClock.day, Self.asOfClock.clock), includeTest, reference, scenario.day(0)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// By hand, per Tokyo day (the end of the day, or as_of on day 13):
    /// - 10: u1 (v1) and u2 (control) exposed, neither matured.
    /// - 11: u1, u2 and u4 matured (u4 at the last instant); u1 and u4 bought. u3 and u5 exposed.
    /// - 12: u3 matured and bought; u5 leaves both arms (second arm); u6 exposed.
    /// - 13: u6 matured at day 13 01:00 UTC and bought (merged); u7 exposed.
    private static let expected = [
        "10 control 0 0", "10 v1 0 0",
        "11 control 1 0", "11 v1 2 2",
        "12 control 2 1", "12 v1 2 2",
        "13 control 2 1", "13 v1 3 3",
    ]

    @Test("Each day's arms are the control report as read at that day's end, pending events and a merge included")
    func seriesByHand() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFolded(scenario)
        try writePending(scenario)
        // Pending (u5–u7 and the login not folded), the per-day control reports, the raw events: all alike.
        for (includeTest, reference) in [(false, false), (true, false), (false, true)] {
            let rows = try series(scenario, includeTest: includeTest, reference: reference)
            #expect(rows == Self.expected, "pending, include_test \(includeTest), reference \(reference): \(rows)")
        }
        _ = try ReportStateStore(connection: scenario.connection).fold()
        for reference in [false, true] {
            let rows = try series(scenario, reference: reference)
            #expect(rows == Self.expected, "folded, reference \(reference): \(rows)")
        }
    }

    @Test("A window with hours, whose users of one day mature on two, reads them one by one with the same result")
    func windowWithHours() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFolded(scenario)
        try writePending(scenario)
        try scenario.settings("c1", CampaignSettingsUpdate(conversionWindow: .set(try ConversionWindow(parsing: "36h"))))
        // By hand, 36 hours after each exposure (Tokyo): u1 and u2 mature on day 11 (22:00, 23:00); u3 at day
        // 13 00:00 sharp, so on day 12, and u4 on day 12 12:00; u6's window ends day 13 22:00, after as_of.
        let expected = [
            "10 control 0 0", "10 v1 0 0",
            "11 control 1 0", "11 v1 1 1",
            "12 control 2 1", "12 v1 2 2",
            "13 control 2 1", "13 v1 2 2",
        ]
        for reference in [false, true] {
            let rows = try series(scenario, reference: reference)
            #expect(rows == expected, "pending, reference \(reference): \(rows)")
        }
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try series(scenario) == expected)
    }

    @Test("The last day's arms are the control report's over the whole range at the run's as-of time")
    func lastDayIsTheControlReport() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFolded(scenario)
        try writePending(scenario)
        let asOf = scenario.time(Self.asOfClock.day, Self.asOfClock.clock)
        let rows = try scenario.session.controlArmDays(app: ReportScenario.appName, campaign: "c1",
                                                       scenario.scope(10, 13), asOf: asOf)
        let arms = try scenario.session.controlArms(scenario.scope(10, 13, campaign: "c1"), asOf: asOf)
        let lastDay = rows.filter { $0.day == scenario.day(13) }
        #expect(lastDay.map(\.variantID) == arms.map(\.variantID))
        #expect(lastDay.map(\.users) == arms.map(\.users))
        #expect(lastDay.map(\.converters) == arms.map(\.converters))
        #expect(lastDay.map(\.users) == [2, 3])
    }

    @Test("A range that as_of has not reached has no days, and app and campaign are required")
    func emptyAndRefused() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeFolded(scenario)
        let early = try scenario.session.controlArmDays(app: ReportScenario.appName, campaign: "c1",
                                                        scenario.scope(10, 14), asOf: scenario.time(9, "00:00"))
        #expect(early.isEmpty)
        #expect {
            try scenario.connection.query("select * from cardinal.control_arm_days($1, null, $2, $3)",
                                          [ReportScenario.appName, scenario.day(10), scenario.day(14)])
        } throws: { error in
            (error as? PostgresError)?.sqlState == .invalidParameterValue
        }
    }
}
