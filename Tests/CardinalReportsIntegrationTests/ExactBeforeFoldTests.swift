import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// Issue 43, "Exact before the fold": a report counts every acknowledged event as the folded state will,
/// identity merge included, so the logins among the pending events apply to the pending events (and to the
/// already folded rows of the same device) in a report that runs before the fold.
///
/// The reported case, on 30 devices: each sees card `c1` anonymously (device only) on day 10, logs in on day 11
/// with an event carrying the device and a new user (a click), and sees the card again on day 12 as the user
/// (user only). By the identity rule each device's history is its user's: 30 users. Worked out by hand in
/// Asia/Tokyo (UTC+9); every time below is before 15:00 UTC, so on the Tokyo day of the same number.
@Suite struct ExactBeforeFoldTests {
    private static let devices = 30

    /// The anonymous impression of device `n` on day 10.
    private func anonymousImpressions(_ scenario: ReportScenario) -> [Event] {
        (1...Self.devices).map { n in event(.impression, at: scenario.time(10, "01:00"), device: "d\(n)") }
    }

    /// Device `n`'s login on day 11 (a click carrying both ids, user `u<n>` new then) and the user's impression
    /// on day 12 (user only).
    private func loginsAndUserImpressions(_ scenario: ReportScenario) -> [Event] {
        (1...Self.devices).flatMap { n in
            [event(.click, at: scenario.time(11, "02:00"), user: "u\(n)", device: "d\(n)"),
             event(.impression, at: scenario.time(12, "03:00"), user: "u\(n)")]
        }
    }

    /// Every row of a report call as text, in the function's order.
    private func rows(_ scenario: ReportScenario, _ call: String) throws -> [String] {
        try scenario.connection.query(
            "select format('%s', r) from \(call) as r",
            [ReportScenario.appName, scenario.day(10), scenario.day(12)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    private func uniqueImpressions(_ scenario: ReportScenario) throws -> [String] {
        try rows(scenario, "cardinal.unique_impressions($1, $2, $3)")
    }

    private func anomalies(_ scenario: ReportScenario) throws -> [String] {
        try rows(scenario, "cardinal.anomalies($1, $2, $3)")
    }

    /// The kinds found over days 10–12, with their severity.
    private func findings(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            "select kind || ':' || severity from cardinal.anomalies($1, $2, $3) order by 1",
            [ReportScenario.appName, scenario.day(10), scenario.day(12)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// The report's one row, checked against the numbers worked out by hand: 60 impressions (30 anonymous, 30
    /// as the user) of 30 users, each on days 10 and 12 (60 user days, which for a content card are also its
    /// recipients), and 30 clicks of 30 users.
    private func expectHandCounts(_ scenario: ReportScenario, _ label: String) throws {
        let rows = try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(10, 12))
        #expect(rows.count == 1, "\(label)")
        let row = try #require(rows.first)
        #expect(row.impressions == 60, "\(label)")
        #expect(row.uniqueImpressions == 30, "\(label)")
        #expect(row.uniqueDailyImpressions == 60, "\(label)")
        #expect(row.uniqueRecipients == 60, "\(label)")
        #expect(row.clicks == 30, "\(label)")
        #expect(row.uniqueClicks == 30, "\(label)")
        // Each user's click (day 11) follows the user's first impression (the device's, day 10).
        #expect(try !findings(scenario).contains { $0.hasPrefix("click_without_impression") }, "\(label)")
    }

    private func fold(_ scenario: ReportScenario) throws {
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)
    }

    @Test("Every event pending: the logins among them merge the devices before the fold, as the fold does")
    func loginsAmongPendingEvents() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write(anonymousImpressions(scenario) + loginsAndUserImpressions(scenario))

        try expectHandCounts(scenario, "before the fold")
        #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 12) == 0)
        #expect(try scenario.differencesFromReference("anomalies", from: 10, to: 12) == 0)
        let before = (try uniqueImpressions(scenario), try anomalies(scenario))

        try fold(scenario)
        try expectHandCounts(scenario, "after the fold")
        #expect(try uniqueImpressions(scenario) == before.0)
        #expect(try anomalies(scenario) == before.1)
    }

    /// The users with a click over days 5–10, before the fold and after it, and the differences from the
    /// reference over those days.
    private func clickingUsersBeforeAndAfterFold(_ scenario: ReportScenario) throws -> [[String]] {
        let clicking = {
            try scenario.connection.query(
                "select distinct user_key from cardinal.report_user_facts where click_days is not null order by 1"
            ).map { try $0.decode(String.self, at: 0) }
        }
        let before = try clicking()
        try fold(scenario)
        return [before, try clicking()]
    }

    @Test("A pending login timed before the device's folded link gives the device's pending events to that user")
    func pendingEarlierLogin() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // d1's link is u2's login at 05:00, folded; d1 has no anonymous event folded.
        try scenario.write([event(.impression, at: scenario.time(10, "05:00"), user: "u2", device: "d1")])
        try fold(scenario)
        // Pending: an anonymous click at 06:00 and u1's login on d1 at 03:00, the earlier one: the click is u1's.
        try scenario.write([
            event(.click, at: scenario.time(10, "06:00"), device: "d1"),
            event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1"),
        ])
        #expect(try clickingUsersBeforeAndAfterFold(scenario) == [["u1"], ["u1"]])
    }

    @Test("A pending event of a merged link's user before the login leaves the device's pending events its own")
    func pendingEventShowsTheUserExisted() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // u1 logs in on d1 at 03:00 as a new user: merged, folded.
        try scenario.write([event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1")])
        try fold(scenario)
        // Pending: an anonymous click of d1, and u1's impression on day 5 on another device: u1 existed at the
        // login, so nothing merges and the click stays device:d1's.
        try scenario.write([
            event(.click, at: scenario.time(10, "06:00"), device: "d1"),
            event(.impression, at: scenario.time(5, "01:00"), user: "u1", device: "d9"),
        ])
        #expect(try clickingUsersBeforeAndAfterFold(scenario) == [["device:d1"], ["device:d1"]])
        #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 12) == 0)
    }

    /// Not done yet: before the fold the device's folded rows stay under `device:<id>`, so the report counts 60
    /// users and 30 clicks without an impression until the fold re-keys them (docs/report-state.md, "Identity
    /// merge"). The known issue fails this test once the reports re-key folded rows, to be removed then.
    @Test("Anonymous impressions folded, logins pending: the device's folded rows count as the user's before the fold")
    func loginPendingOverFoldedDeviceRows() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write(anonymousImpressions(scenario))
        try fold(scenario)
        try scenario.write(loginsAndUserImpressions(scenario))

        withKnownIssue("a pending login re-keys the device's folded rows only at the fold") {
            try expectHandCounts(scenario, "before the fold")
            #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 12) == 0)
            #expect(try scenario.differencesFromReference("anomalies", from: 10, to: 12) == 0)
        }
        let before = (try uniqueImpressions(scenario), try anomalies(scenario))

        try fold(scenario)
        try expectHandCounts(scenario, "after the fold")
        #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 12) == 0)
        #expect(try scenario.differencesFromReference("anomalies", from: 10, to: 12) == 0)
        let after = (try uniqueImpressions(scenario), try anomalies(scenario))
        withKnownIssue("a pending login re-keys the device's folded rows only at the fold") {
            #expect(after.0 == before.0)
            #expect(after.1 == before.1)
        }
    }
}
