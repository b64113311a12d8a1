import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The identity merge of 0032: a device's anonymous events count as the first user who logged in on it when that
/// user was new then (the seeds' rule), in every report, before the fold has learned the login as after it
/// (issue 43). Numbers worked out by hand in Asia/Tokyo (UTC+9): every event below is on report day 10 unless
/// said otherwise.
@Suite struct IdentityMergeTests {
    private func fold(_ scenario: ReportScenario) throws {
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)
    }

    private func uniques(_ scenario: ReportScenario, _ from: Int, _ to: Int) throws -> UniqueImpressionsRow {
        let rows = try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(from, to))
        #expect(rows.count == 1)
        return try #require(rows.first)
    }

    /// The users whose facts hold a click, from the report state and the unfolded events.
    private func clickingUsers(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            "select distinct user_key from cardinal.report_user_facts where click_days is not null order by 1"
        ).map { try $0.decode(String.self, at: 0) }
    }

    private func merged(_ scenario: ReportScenario, device: String) throws -> Bool? {
        try scenario.connection.query(
            "select merged from cardinal.identity_links where app_id = $1 and device_id = $2", [scenario.app.id, device]
        ).first?.decode(Bool.self, at: 0)
    }

    private func link(_ scenario: ReportScenario, device: String) throws -> String? {
        try scenario.connection.query(
            "select user_id from cardinal.identity_links where app_id = $1 and device_id = $2", [scenario.app.id, device]
        ).first?.decode(String.self, at: 0)
    }

    @Test("An impression before login and a click after it are no click_without_impression once merged")
    func clickAfterLoginHasItsImpression() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, .inAppMessage, at: scenario.time(10, "01:00"), device: "d1"),
            event(.click, .inAppMessage, at: scenario.time(10, "02:00"), user: "u1", device: "d1"),
        ])
        let findings = {
            try AnomaliesReport.run(
                session: scenario.session, scope: scenario.scope(10, 10), asOf: scenario.time(30, "00:00")
            ).findings.filter { $0.kind == .clickWithoutImpression }
        }
        // The pending login merges device:d1 into u1 before the fold too: u1 saw it, then clicked.
        #expect(try findings() == [])
        try fold(scenario)
        #expect(try findings() == [])
    }

    @Test("A device's impression and a new user's impression after login are one unique user")
    func deviceAndNewUserAreOneUnique() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(5, "01:00"), device: "d1"),              // day 5
            event(.impression, at: scenario.time(10, "01:00"), device: "d1"),
            event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1"),  // u1's first event
        ])
        try fold(scenario)
        #expect(try merged(scenario, device: "d1") == true)
        let row = try uniques(scenario, 5, 10)
        #expect(row.impressions == 3)
        // u1 alone, not u1 and device:d1.
        #expect(row.uniqueImpressions == 1)
        // Day 5 {u1}, day 10 {u1}: 2 pairs (3 without the merge: day 10 {device:d1, u1}).
        #expect(row.uniqueDailyImpressions == 2)
        #expect(try scenario.differencesFromReference("unique_impressions", from: 5, to: 10) == 0)
    }

    @Test("A user who existed before logging in keeps the device's anonymous events apart, as Braze does")
    func existingUserIsNotMerged() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), device: "d1"),
            event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1"),
        ])
        try fold(scenario)
        #expect(try uniques(scenario, 5, 10).uniqueImpressions == 1)

        // Arrives late: u1 had an event on another device on day 5, so u1 existed when logging in on d1.
        try scenario.write([event(.impression, at: scenario.time(5, "01:00"), user: "u1", device: "d9")])
        try fold(scenario)
        #expect(try link(scenario, device: "d1") == "u1")
        #expect(try merged(scenario, device: "d1") == false)
        let row = try uniques(scenario, 5, 10)
        // u1 (day 5 and day 10) and device:d1 (day 10): 2 users, 3 pairs.
        #expect(row.uniqueImpressions == 2)
        #expect(row.uniqueDailyImpressions == 3)
        #expect(try scenario.differencesFromReference("unique_impressions", from: 5, to: 10) == 0)
    }

    @Test("A conversion after login credits the exposure the device had before it in the control report")
    func conversionAfterLoginCreditsEarlierExposure() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.settings(
            "c1", CampaignSettingsUpdate(conversionEvent: .set("purchase"),
                                         conversionWindow: .set(try ConversionWindow(parsing: "1d")))
        )
        try scenario.write([
            // Exposed anonymously at 01:00, logs in and buys at 05:00: within the day's window.
            event(.impression, at: scenario.time(10, "01:00"), device: "d1"),
            event(.conversion, at: scenario.time(10, "05:00"), user: "u1", device: "d1", conversion: "purchase"),
        ])
        let arms = {
            try ControlArmsQuery(connection: scenario.connection)
                .run(scenario.scope(10, 10), asOf: scenario.time(20, "00:00"))
        }
        // Merged before the fold by the pending login as after it: u1 is the v1 user, and bought.
        try scenario.beforeAndAfterFold { folded throws in
            let merged = try arms()
            #expect(merged.map(\.variantID) == ["v1"], "folded: \(folded)")
            #expect(merged.map(\.users) == [1], "folded: \(folded)")
            #expect(merged.map(\.converters) == [1], "folded: \(folded)")
        }
    }

    @Test("On a shared tablet the anonymous history goes to the first user who logged in, never to the second")
    func sharedTabletHistoryGoesToTheFirstUser() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), device: "t1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u1", device: "t1"),
            event(.impression, at: scenario.time(10, "04:00"), user: "u2", device: "t1"),
            // Anonymous again after u2 logged out: still u1's.
            event(.click, at: scenario.time(10, "06:00"), device: "t1"),
        ])
        try fold(scenario)
        #expect(try link(scenario, device: "t1") == "u1")
        let row = try uniques(scenario, 10, 10)
        // u1 (its own and both anonymous events) and u2: 2, not 3 nor 4.
        #expect(row.impressions == 3)
        #expect(row.uniqueImpressions == 2)
        #expect(row.uniqueClicks == 1)
        #expect(try clickingUsers(scenario) == ["u1"])
        #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 10) == 0)
    }

    @Test("A late login timed before the device's link moves the anonymous history to that earlier user")
    func lateEarlierLoginMovesHistory() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.click, at: scenario.time(10, "01:00"), device: "d1"),
            event(.impression, at: scenario.time(10, "05:00"), user: "u2", device: "d1"),
        ])
        try fold(scenario)
        #expect(try link(scenario, device: "d1") == "u2")
        #expect(try clickingUsers(scenario) == ["u2"])

        // Arrives late: u1 was logged in on d1 at 03:00, before u2.
        try scenario.write([event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1")])
        try fold(scenario)
        #expect(try link(scenario, device: "d1") == "u1")
        #expect(try clickingUsers(scenario) == ["u1"])
        let row = try uniques(scenario, 10, 10)
        #expect(row.uniqueImpressions == 2)
        #expect(row.uniqueClicks == 1)
        #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 10) == 0)
    }

    @Test("Erasing the first user of a tablet hands its anonymous history to the next user who logged in on it")
    func erasingTheFirstUserFallsBackToTheNext() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.click, at: scenario.time(10, "01:00"), device: "t1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u1", device: "t1"),
            event(.impression, at: scenario.time(10, "04:00"), user: "u2", device: "t1"),
        ])
        try fold(scenario)
        #expect(try clickingUsers(scenario) == ["u1"])
        let record = try IdentityEraser(connection: scenario.connection)
            .erase(ErasureTarget(kind: .user, id: "u1"), appID: scenario.app.id)
        #expect(record.events == 1)
        #expect(try link(scenario, device: "t1") == "u2")
        // Exact before the fold (the history is queued again) and after it.
        #expect(try clickingUsers(scenario) == ["u2"])
        try fold(scenario)
        #expect(try clickingUsers(scenario) == ["u2"])
        #expect(try uniques(scenario, 10, 10).uniqueImpressions == 1)
        #expect(try scenario.differencesFromReference("unique_impressions", from: 10, to: 10) == 0)
    }
}
