import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The day pairs of 0025: per report row, kind and day, users counted by their previous day, from which
/// unique_impressions sums its unique counts. The numbers are worked out by hand in each test.
@Suite struct ReportDayPairsTests {
    /// The impression pairs of the scenario's one row as "day previous_day users", day numbers relative to
    /// the scenario (`-` for a user's first day).
    private func impressionPairs(_ scenario: ReportScenario) throws -> [String] {
        try scenario.connection.query(
            """
            select format('%s %s %s', p.day - $1::date,
                          case when p.previous_day = '-infinity' then '-' else (p.previous_day - $1::date)::text end,
                          p.users)
            from cardinal.report_row_day_users as p
            where p.kind = 'impression'
            order by p.day, p.previous_day
            """,
            [scenario.day(0)]
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// u1 sees the card on days 10 and 14, u2 on day 12 (all at 03:00 UTC, noon in Tokyo); then u1's late
    /// impression of day 12 arrives.
    private func writeLateDay(_ scenario: ReportScenario) throws {
        try scenario.write([
            event(.impression, at: scenario.time(10, "03:00"), user: "u1"),
            event(.impression, at: scenario.time(14, "03:00"), user: "u1"),
            event(.impression, at: scenario.time(12, "03:00"), user: "u2"),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()
        try scenario.write([event(.impression, at: scenario.time(12, "04:00"), user: "u1")])
    }

    @Test("A late day between two others moves the later day's pair, and uniques over any range stay exact")
    func lateDayBetweenTwoOthers() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeLateDay(scenario)
        let query = UniqueImpressionsQuery(connection: scenario.connection)

        // Folded so far: u1 {10, 14}, u2 {12}.
        #expect(try impressionPairs(scenario) == ["10 - 1", "12 - 1", "14 10 1"])
        // The reports add the late day's change before it is folded, and after: the same numbers.
        for folded in [false, true] {
            if folded {
                _ = try ReportStateStore(connection: scenario.connection).fold()
                // u1 {10, 12, 14}: (12, 10) and (14, 12) replace (14, 10).
                #expect(try impressionPairs(scenario) == ["10 - 1", "12 - 1", "12 10 1", "14 12 1"])
            }
            // Days 12–14: u1 and u2; (day, user) pairs: day 12 u1 and u2, day 14 u1.
            let middle = try #require(try query.run(scenario.scope(12, 14)).first)
            #expect(middle.uniqueImpressions == 2, "folded: \(folded)")
            #expect(middle.uniqueDailyImpressions == 3, "folded: \(folded)")
            #expect(middle.impressions == 3, "folded: \(folded)")
            // Days 13–14: u1 alone, whose previous day (12) is before the range.
            let last = try #require(try query.run(scenario.scope(13, 14)).first)
            #expect(last.uniqueImpressions == 1, "folded: \(folded)")
            // By day, 10 to 14: day 10 u1, day 12 u1 and u2, day 14 u1.
            let days = try query.run(scenario.scope(10, 14), by: .day)
            #expect(days.map(\.breakdown) == [10, 12, 14].map { scenario.day($0).description }, "folded: \(folded)")
            #expect(days.map(\.uniqueImpressions) == [1, 2, 1], "folded: \(folded)")
        }
    }

    @Test("Erasing a user takes its pairs out of the counts and leaves the other users' pairs")
    func erasureTakesPairsOut() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try writeLateDay(scenario)
        _ = try ReportStateStore(connection: scenario.connection).fold()

        _ = try IdentityEraser(connection: scenario.connection)
            .erase(ErasureTarget(kind: .user, id: "u1"), appID: scenario.app.id)

        #expect(try impressionPairs(scenario) == ["12 - 1"])
        let rows = try scenario.connection.query("select count(*) from cardinal.report_row_user_days")
        #expect(try rows.first?.decode(Int64.self, at: 0) == 1)
        let row = try #require(try UniqueImpressionsQuery(connection: scenario.connection).run(scenario.scope(10, 14)).first)
        #expect(row.uniqueImpressions == 1)
        #expect(row.impressions == 1)
    }

    @Test("Test events and control impressions have no pairs, and a test-inclusive report still counts test users")
    func testAndControlEventsStayOut() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "03:00"), user: "u1"),
            event(.impression, at: scenario.time(10, "03:00"), user: "tester", test: true),
            event(.impression, at: scenario.time(10, "03:00"), user: "held-out", control: true),
        ])
        _ = try ReportStateStore(connection: scenario.connection).fold()

        #expect(try impressionPairs(scenario) == ["10 - 1"])
        let query = UniqueImpressionsQuery(connection: scenario.connection)
        #expect(try query.run(scenario.scope(10, 10)).first?.uniqueImpressions == 1)
        #expect(try query.run(scenario.scope(10, 10, includeTest: true)).first?.uniqueImpressions == 2)
    }
}
