import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// The fold's record of its runs (`cardinal.report_fold_runs`) and the pace `cardinal.report_fold_rate()` reads
/// from them: every expected figure is worked out here from the events the test stored and the runs it reads
/// back, never taken from the function under test.
@Suite struct ReportFoldRateTests {
    /// One app, and a connection for storing, folding and reading.
    private struct Fixture {
        let database: TestDatabase
        let connection: PostgresConnection
        let appID: Int64

        init() throws {
            database = try TestDatabase.migrated(prefix: "fold_rate")
            connection = try database.connect()
            appID = try AppStore(connection: connection).create(name: "rate", reportTimeZone: "UTC").id
        }

        var state: ReportStateStore {
            ReportStateStore(connection: connection)
        }

        /// Stores `count` impressions, each of a user of its own, in one transaction.
        func store(_ count: Int) throws {
            try connection.execute(
                """
                insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
                select $1, gen_random_uuid(), 'impression', 'content_card', now(), 'user-' || gen_random_uuid(),
                       'spring'
                from generate_series(1, $2)
                """,
                [appID, count]
            )
        }

        /// The database's clock now.
        func clock() throws -> Date {
            try connection.query("select clock_timestamp()")[0].decode(Date.self, at: 0)
        }

        /// The recorded runs, oldest first, each with the seconds it spent as the database subtracts its times.
        func runs() throws -> [Run] {
            try connection.query(
                """
                select started_at, finished_at, events, backlog_after,
                       extract(epoch from finished_at - started_at)::double precision as seconds
                from cardinal.report_fold_runs
                order by started_at
                """
            ).map { row in
                Run(started: try row.decode(Date.self, column: "started_at"),
                    finished: try row.decode(Date.self, column: "finished_at"),
                    events: try row.decode(Int64.self, column: "events"),
                    backlogAfter: try row.decode(Int64.self, column: "backlog_after"),
                    seconds: try row.decode(Double.self, column: "seconds"))
            }
        }

        /// `report_fold_rate(period)`, with the database's clock just before and after it.
        func rate(period: String = "5 minutes") throws -> (rate: Rate, before: Date, after: Date) {
            let before = try clock()
            let row = try connection.query("select * from cardinal.report_fold_rate($1::interval)", [period])[0]
            let rate = Rate(
                backlog: try row.decode(Int64.self, column: "backlog_events"),
                measuredSeconds: try row.decode(Double?.self, column: "measured_seconds"),
                folds: try row.decode(Int64.self, column: "folds"),
                foldedEvents: try row.decode(Int64.self, column: "folded_events"),
                foldingSeconds: try row.decode(Double.self, column: "folding_seconds"),
                eventsPerSecond: try row.decode(Double?.self, column: "fold_events_per_second"),
                capacity: try row.decode(Double?.self, column: "capacity_events_per_second"),
                arrival: try row.decode(Double?.self, column: "arrival_events_per_second"),
                drainSeconds: try row.decode(Double?.self, column: "drain_seconds")
            )
            return (rate, before, try clock())
        }
    }

    private struct Run {
        let started: Date
        let finished: Date
        let events: Int64
        let backlogAfter: Int64
        let seconds: Double
    }

    private struct Rate {
        let backlog: Int64
        let measuredSeconds: Double?
        let folds: Int64
        let foldedEvents: Int64
        let foldingSeconds: Double
        let eventsPerSecond: Double?
        let capacity: Double?
        let arrival: Double?
        let drainSeconds: Double?
    }

    /// Equal but for the rounding of a few floating-point operations.
    private static func close(_ value: Double?, _ expected: Double) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= 1e-9 * max(1, abs(expected))
    }

    @Test("A fold records when it ran, the events it folded and that it left none of them behind")
    func foldRecordsItsRun() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        try fixture.store(30)

        let before = try fixture.clock()
        #expect(try fixture.state.fold() == 30)
        let after = try fixture.clock()

        let runs = try fixture.runs()
        #expect(runs.count == 1)
        let run = try #require(runs.first)
        #expect(run.events == 30)
        #expect(run.backlogAfter == 0)
        #expect(before <= run.started && run.started <= run.finished && run.finished <= after)
    }

    @Test("A fold of one part of a long queue records the rest of the queue as left for the next")
    func partOfALongQueueRecordsWhatIsLeft() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        try fixture.store(40)
        #expect(try fixture.state.fold() == 40)
        let queued = try fixture.state.requeue(appID: fixture.appID)
        #expect(queued == 40)
        // 10 queued events a fold: the 40 take several folds.
        try fixture.connection.execute("set cardinal.fold_queue_budget = 10")

        var left = queued
        var folds = 0
        while left > 0 {
            let folded = try #require(try fixture.state.fold())
            left -= folded
            folds += 1
            let run = try #require(try fixture.runs().last)
            #expect(run.events == folded)
            #expect(run.backlogAfter == left, "after fold \(folds)")
        }
        #expect(folds > 1)
        #expect(try fixture.runs().count == 1 + folds)
    }

    @Test("The rates add up what was folded since the reference fold, what it saw waiting and the backlog now")
    func ratesAddUpFromTheReferenceFold() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let (first, second, waiting): (Int64, Int64, Int64) = (30, 20, 7)
        try fixture.store(Int(first))
        #expect(try fixture.state.fold() == first)
        try fixture.store(Int(second))
        #expect(try fixture.state.fold() == second)
        try fixture.store(Int(waiting))
        let runs = try fixture.runs()
        try #require(runs.count == 2)

        // No fold began an hour ago: the reference is the earliest kept, the first. Since it began, `second`
        // and `waiting` arrived, and both folds folded what they did.
        let (hour, before, after) = try fixture.rate(period: "1 hour")
        let measured = try #require(hour.measuredSeconds)
        // Timestamps read as `Date` keep about a tenth of a microsecond.
        #expect(measured >= before.timeIntervalSince(runs[0].started) - 1e-5)
        #expect(measured <= after.timeIntervalSince(runs[0].started) + 1e-5)
        #expect(hour.backlog == waiting)
        #expect(hour.folds == 2)
        #expect(hour.foldedEvents == first + second)
        let folding = runs[0].seconds + runs[1].seconds
        #expect(Self.close(hour.foldingSeconds, folding))
        #expect(Self.close(hour.eventsPerSecond, Double(first + second) / measured))
        let capacity = Double(first + second) / folding
        #expect(Self.close(hour.capacity, capacity))
        let arrival = Double(second + waiting) / measured
        #expect(Self.close(hour.arrival, arrival))
        if capacity > arrival {
            #expect(Self.close(hour.drainSeconds, Double(waiting) / (capacity - arrival)))
        } else {
            #expect(hour.drainSeconds == .infinity)
        }

        // Every fold began at least 0 s ago: the reference is the latest, the second, and since it began only
        // `waiting` arrived.
        let (now, _, _) = try fixture.rate(period: "0 seconds")
        let measuredNow = try #require(now.measuredSeconds)
        #expect(now.folds == 1)
        #expect(now.foldedEvents == second)
        #expect(Self.close(now.capacity, Double(second) / runs[1].seconds))
        #expect(Self.close(now.arrival, Double(waiting) / measuredNow))
    }

    @Test("Without a recorded fold the rates are unknown, and only an empty backlog has a drain time, 0")
    func withoutAFoldTheRatesAreUnknown() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }

        let (empty, _, _) = try fixture.rate()
        #expect(empty.backlog == 0)
        #expect(empty.measuredSeconds == nil)
        #expect((empty.folds, empty.foldedEvents, empty.foldingSeconds) == (0, 0, 0))
        #expect(empty.eventsPerSecond == nil && empty.capacity == nil && empty.arrival == nil)
        #expect(empty.drainSeconds == 0)

        try fixture.store(5)
        let (waiting, _, _) = try fixture.rate()
        #expect(waiting.backlog == 5)
        #expect(waiting.drainSeconds == nil)
    }

    @Test("A backlog that arrives faster than the fold folds it never drains")
    func backlogArrivingFasterThanTheFoldNeverDrains() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        // One slow fold, as if recorded: 1 event in 50 s, 100 s ago, that left nothing behind.
        try fixture.connection.execute(
            """
            insert into cardinal.report_fold_runs (started_at, finished_at, events, backlog_after)
            values (now() - interval '100 seconds', now() - interval '50 seconds', 1, 0)
            """
        )
        try fixture.store(5)

        let (rate, _, _) = try fixture.rate()
        let measured = try #require(rate.measuredSeconds)
        #expect(Self.close(rate.capacity, 1.0 / 50))
        // What arrived since it began: the 5 waiting now, less the 1 it saw, plus the 1 it folded.
        let arrival = Double(5 - 1 + 1) / measured
        #expect(Self.close(rate.arrival, arrival))
        #expect(arrival > 1.0 / 50)
        #expect(rate.drainSeconds == .infinity)
    }

    @Test("A fold deletes the recorded runs that finished more than an hour before it")
    func foldDeletesRunsOlderThanAnHour() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        try fixture.connection.execute(
            """
            insert into cardinal.report_fold_runs (started_at, finished_at, events, backlog_after)
            values (now() - interval '62 minutes', now() - interval '61 minutes', 1, 0),
                   (now() - interval '59 minutes', now() - interval '59 minutes', 2, 0)
            """
        )
        try fixture.store(3)

        #expect(try fixture.state.fold() == 3)

        #expect(try fixture.runs().map(\.events) == [2, 3])
    }

    @Test("cardinald's role reads the backlog and the fold's pace, and its folds are recorded, but not the runs themselves")
    func ingestRoleReadsThePace() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        try fixture.store(3)
        let daemon = try fixture.database.connect()
        try daemon.execute("set role cardinal_ingest")
        let store = ReportStateStore(connection: daemon)

        #expect(try store.backlog().events == 3)
        #expect(try store.fold() == 3)
        try fixture.store(2)
        let backlog = try store.backlog()

        let run = try #require(try fixture.runs().first)
        #expect(run.events == 3)
        #expect(backlog.events == 2)
        #expect(Self.close(backlog.fold.capacityEventsPerSecond, 3 / run.seconds))
        let error = #expect(throws: PostgresError.self) {
            try daemon.query("select count(*) from cardinal.report_fold_runs")
        }
        #expect(error?.sqlState == .insufficientPrivilege)
    }
}
