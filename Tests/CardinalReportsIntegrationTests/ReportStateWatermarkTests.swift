import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// The fold's watermark: writers commit in another order than their transactions began, and every
/// stored event must still be folded exactly once and counted by the reports exactly once meanwhile.
@Suite struct ReportStateWatermarkTests {
    /// One app with a campaign, and a connection for the fold and the reports.
    private struct Fixture {
        let database: TestDatabase
        let connection: PostgresConnection
        let appID: Int64
        let day = ReportDate(utcDayOf: Date())

        init() throws {
            database = try TestDatabase.migrated(prefix: "watermark")
            connection = try database.connect()
            appID = try AppStore(connection: connection).create(name: "watermark", reportTimeZone: "UTC").id
        }

        var state: ReportStateStore {
            ReportStateStore(connection: connection)
        }

        /// Stores one impression per user on `writer`, in whatever transaction `writer` has open, for the app
        /// `app` (the fixture's by default).
        func storeImpressions(of users: [String], on writer: PostgresConnection, app: Int64? = nil) throws {
            for user in users {
                try writer.execute(
                    """
                    insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
                    values ($1, gen_random_uuid(), 'impression', 'content_card', now(), $2, 'spring')
                    """,
                    [app ?? appID, user]
                )
            }
        }

        /// The campaign's unique impressions over the fixture's day and the next, from state, and how many of
        /// its rows differ from the reference over raw events. The next day too because the events are stored at
        /// `now()`: a test that runs across midnight (UTC) stores some of them on the day after the fixture's.
        func uniqueImpressions() throws -> (unique: Int64, differences: Int64) {
            try uniqueImpressions(on: connection)
        }

        /// ``uniqueImpressions()`` on `session`, such as a new one that has planned nothing yet, of the app named
        /// `app`.
        func uniqueImpressions(
            on session: PostgresConnection, app: String = "watermark"
        ) throws -> (unique: Int64, differences: Int64) {
            let arguments = "'\(app)', $1, $1::date + 1, false, 'spring'"
            let row = try session.query(
                """
                select (select sum(unique_impressions) from cardinal.unique_impressions(\(arguments)))::bigint,
                       (select count(*) from (
                            select * from cardinal.unique_impressions(\(arguments))
                            except all
                            select * from cardinal.unique_impressions_reference(\(arguments))) as extra)
                       + (select count(*) from (
                            select * from cardinal.unique_impressions_reference(\(arguments))
                            except all
                            select * from cardinal.unique_impressions(\(arguments))) as missing)
                """,
                [day]
            ).first
            return (try row?.decode(Int64?.self, at: 0) ?? 0, try row?.decode(Int64.self, at: 1) ?? -1)
        }

        /// The events a pending read returns on `session`, and how often it scanned the stored_xid index of a
        /// partition (bitmap scans of its BRIN index in the read's transaction; every partition is scanned alike).
        func pendingReadScans(on session: PostgresConnection) throws -> (pending: Int64, scans: Int64) {
            try session.transaction { connection in
                let pending = try connection.query("select count(*) from cardinal.report_unfolded_events()")
                    .first?.decode(Int64.self, at: 0) ?? -1
                let scans = try connection.query(
                    """
                    select coalesce(max(pg_catalog.pg_stat_get_xact_numscans(h.inhrelid)), 0)
                    from pg_catalog.pg_inherits as h
                    where h.inhparent = 'cardinal.events_stored_xid'::regclass
                    """
                ).first?.decode(Int64.self, at: 0) ?? -1
                return (pending, scans)
            }
        }

        /// Recorded storing transactions that the watermark has passed: its advance prunes them.
        func storingTransactionsBelowWatermark() throws -> Int64 {
            try connection.query(
                """
                select count(*)
                from cardinal.event_storing_xids as s, cardinal.report_fold_watermark as w
                where s.xid < w.folded_below
                """
            ).first?.decode(Int64.self, at: 0) ?? -1
        }

        func foldedTransactions() throws -> Int64 {
            try connection.query("select count(*) from cardinal.report_folded_xids").first?.decode(Int64.self, at: 0) ?? -1
        }

        /// Remembered transactions that the watermark has passed: the fold prunes them. (How many stay above it
        /// depends on every writing transaction in the cluster, other tests' included.)
        func foldedTransactionsBelowWatermark() throws -> Int64 {
            try connection.query(
                """
                select count(*)
                from cardinal.report_folded_xids as x, cardinal.report_fold_watermark as w
                where x.xid < w.folded_below
                """
            ).first?.decode(Int64.self, at: 0) ?? -1
        }
    }

    @Test("A writer that began before a fold and commits after it is folded by the next fold, once")
    func writerOvertakenByFoldIsFoldedLater() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let older = try fixture.database.connect()
        let younger = try fixture.database.connect()

        try older.execute("begin")
        try fixture.storeImpressions(of: ["a1", "a2"], on: older)
        try fixture.storeImpressions(of: ["b1", "b2", "b3"], on: younger)

        // The younger writer committed while the older one still runs: the fold takes its three events and
        // must remember that it did, since the watermark cannot pass the older writer.
        #expect(try fixture.state.fold() == 3)
        // Each autocommitted insert of the younger writer is a transaction of its own.
        #expect(try fixture.foldedTransactions() == 3)
        #expect(try fixture.state.backlog().events == 0)
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))

        try older.execute("commit")
        #expect(try fixture.state.backlog().events == 2)
        #expect(try fixture.uniqueImpressions() == (unique: 5, differences: 0))

        #expect(try fixture.state.fold() == 2)
        #expect(try fixture.state.backlog().events == 0)
        #expect(try fixture.foldedTransactionsBelowWatermark() == 0)
        #expect(try fixture.uniqueImpressions() == (unique: 5, differences: 0))
        #expect(try fixture.state.fold() == 0)
    }

    @Test("A writing transaction left open does not make the pending read fetch what the folds took since")
    func openTransactionDoesNotWidenThePendingRead() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        // A psql session left idle in a transaction after a write: it holds the watermark back.
        let idle = try fixture.database.connect()
        try idle.execute("begin")
        try idle.execute("select pg_catalog.pg_current_xact_id()")

        let stored: Int64 = 20_000
        try fixture.connection.execute(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
            select $1, gen_random_uuid(), 'impression', 'content_card', now(), 'u' || g, 'spring'
            from generate_series(1, $2::integer) as g
            """,
            [fixture.appID, stored]
        )
        #expect(try fixture.state.fold() == stored)
        // What autosummarize would do in its own time: the BRIN ranges that filled get their bounds.
        try fixture.connection.execute(
            """
            select pg_catalog.brin_summarize_new_values(h.inhrelid)
            from pg_catalog.pg_inherits as h
            where h.inhparent = 'cardinal.events_stored_xid'::regclass
            """
        )

        let (pending, fetched) = try fixture.connection.transaction { connection in
            let pending = try connection.query("select count(*) from cardinal.report_unfolded_events()")
                .first?.decode(Int64.self, at: 0)
            // Heap rows the pending read fetched from the events' partitions, in this transaction.
            let fetched = try connection.query(
                """
                select sum(pg_catalog.pg_stat_get_xact_tuples_fetched(h.inhrelid))::bigint
                from pg_catalog.pg_inherits as h
                where h.inhparent = 'cardinal.events'::regclass
                """
            ).first?.decode(Int64.self, at: 0)
            return (pending, fetched)
        }
        #expect(pending == 0)
        // Before 0041 every event stored since the idle transaction began was fetched (all 20,000) and
        // dropped; now only the table's last, unsummarized page range (32 pages, a few thousand rows).
        #expect((fetched ?? stored) < stored / 2)

        try idle.execute("commit")
        #expect(try fixture.uniqueImpressions() == (unique: stored, differences: 0))
    }

    @Test("An event stored after a fold is counted by a report in a new session")
    func eventStoredAfterFoldCountsInNewSession() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let writer = try fixture.database.connect()
        try fixture.storeImpressions(of: ["d1", "d2"], on: writer)
        #expect(try fixture.state.fold() == 2)
        try fixture.storeImpressions(of: ["d3"], on: writer)

        // d1 and d2 folded, d3 pending: a session that has read nothing yet counts the three.
        let report = try fixture.database.connect()
        #expect(try fixture.uniqueImpressions(on: report) == (unique: 3, differences: 0))
    }

    @Test("A writer running at a fold that stores its events only after it is counted by a new session")
    func writerRunningAtFoldStoresLater() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let writer = try fixture.database.connect()
        try fixture.storeImpressions(of: ["e1"], on: writer)
        let late = try fixture.database.connect()
        // The late writer has a transaction id (it is among the fold's running transactions) but no event yet.
        try late.execute("begin")
        try late.execute("select pg_catalog.pg_current_xact_id()")
        #expect(try fixture.state.fold() == 1)
        try fixture.storeImpressions(of: ["e2", "e3"], on: late)
        try late.execute("commit")

        // e1 folded; e2 and e3 stored by a transaction below the watermark's next_xid: 1 + 2 users.
        let report = try fixture.database.connect()
        #expect(try fixture.uniqueImpressions(on: report) == (unique: 3, differences: 0))
        #expect(try fixture.state.fold() == 2)
        #expect(try fixture.uniqueImpressions(on: try fixture.database.connect()) == (unique: 3, differences: 0))
    }

    @Test("A pending read scans no events partition when nothing was stored since the fold")
    func pendingReadSkipsPartitionsWhenNothingStored() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let writer = try fixture.database.connect()
        try fixture.storeImpressions(of: ["f1"], on: writer)
        #expect(try fixture.state.fold() == 1)
        #expect(try fixture.storingTransactionsBelowWatermark() == 0)
        #expect(try fixture.pendingReadScans(on: try fixture.database.connect()) == (pending: 0, scans: 0))

        // One event stored: the read scans the table's tail again (the BRIN index of the day's partition).
        try fixture.storeImpressions(of: ["f2"], on: writer)
        #expect(try fixture.pendingReadScans(on: try fixture.database.connect()) == (pending: 1, scans: 1))
    }

    @Test("Rebuilding an app while some of its events wait for the fold counts each of them once")
    func requeueCountsWaitingEventsOnce() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let writer = try fixture.database.connect()
        try fixture.storeImpressions(of: ["c1", "c2"], on: writer)
        #expect(try fixture.state.fold() == 2)
        try fixture.storeImpressions(of: ["c3"], on: writer)

        // Two folded events go back to the queue; the third, stored after the fold, goes there with its
        // transaction.
        #expect(try fixture.state.requeue(appID: fixture.appID) == 3)
        #expect(try fixture.state.queuedEvents() == 3)
        #expect(try fixture.state.backlog().events == 3)
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))
        #expect(try fixture.state.fold() == 3)
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))
    }

    @Test("Rebuilding an app folds the events an insert without triggers stored (the replica role, a restore)")
    func requeueTakesEventsOfUnrecordedTransactions() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let writer = try fixture.database.connect()
        try fixture.storeImpressions(of: ["r1"], on: writer)
        #expect(try fixture.state.fold() == 1)

        // No trigger records these transactions: one the next fold's watermark passes unseen (an older open
        // transaction keeps it above folded_below), one after that fold.
        let holder = try fixture.database.connect()
        try holder.execute("begin")
        try holder.execute("select pg_current_xact_id()")
        let replica = try fixture.database.connect()
        try replica.execute("set session_replication_role = replica")
        try fixture.storeImpressions(of: ["r2"], on: replica)
        #expect(try fixture.state.fold() == 0)
        try holder.execute("rollback")
        try fixture.storeImpressions(of: ["r3"], on: replica)
        #expect(try fixture.uniqueImpressions() == (unique: 1, differences: 2))

        #expect(try fixture.state.requeue(appID: fixture.appID) == 3)
        #expect(try fixture.state.fold() == 3)
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))
        #expect(try fixture.state.fold() == 0)
    }

    @Test("Rebuilding an app after a bulk load queues the load's events of every app, so that the fold takes them in parts")
    func requeueQueuesPendingTransactionsWhole() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let other = try AppStore(connection: fixture.connection).create(name: "bystander", reportTimeZone: "UTC").id
        let users = (1...6).map { "load\($0)" }

        // One transaction stores both apps' events, as a writer batch or a bulk load does; no fold has seen it.
        let loader = try fixture.database.connect()
        try loader.execute("begin")
        try fixture.storeImpressions(of: users, on: loader)
        try fixture.storeImpressions(of: ["other1", "other2", "other3"], on: loader, app: other)
        try loader.execute("commit")

        #expect(try fixture.state.requeue(appID: fixture.appID) == 6)
        #expect(try fixture.state.queuedEvents() == 9)
        #expect(try fixture.state.backlog().events == 9)
        #expect(try fixture.uniqueImpressions() == (unique: 6, differences: 0))
        #expect(try fixture.uniqueImpressions(on: fixture.connection, app: "bystander") == (unique: 3, differences: 0))

        try fixture.connection.execute("set cardinal.fold_queue_budget = 2")
        var folds: [Int64] = []
        while try fixture.state.queuedEvents() > 0, folds.count < 20 {
            folds.append(try fixture.state.fold() ?? -1)
            #expect(try fixture.state.backlog().events == 9 - folds.reduce(0, +))
            #expect(try fixture.uniqueImpressions() == (unique: 6, differences: 0))
        }
        #expect(folds.count > 1)
        #expect(folds.reduce(0, +) == 9)
        #expect(try fixture.state.fold() == 0)
        #expect(try fixture.uniqueImpressions() == (unique: 6, differences: 0))
        #expect(try fixture.uniqueImpressions(on: fixture.connection, app: "bystander") == (unique: 3, differences: 0))
    }

    @Test(
        "Rebuilding an app after a bulk load learns the load's logins before it queues the load, triggers or not",
        arguments: [false, true]
    )
    func requeueLearnsTheLoginsOfTheTransactionsItQueues(withoutTriggers: Bool) throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }

        // A device's anonymous impression, then its first login a minute later: the user's history begins
        // with the device's, so the reference counts one user. The replica role fires no trigger, as a
        // restore with --disable-triggers: nothing records the load's transaction.
        let loader = try fixture.database.connect()
        if withoutTriggers {
            try loader.execute("set session_replication_role = replica")
        }
        try loader.execute("begin")
        for (user, offset) in [(nil, "-1 minute"), ("member", "0 minutes")] as [(String?, String)] {
            try loader.execute(
                """
                insert into cardinal.events (app_id, id, type, channel, time, user_id, device_id, campaign_id)
                values ($1, gen_random_uuid(), 'impression', 'content_card', now() + $3::interval, $2, 'phone',
                        'spring')
                """,
                [fixture.appID, user, offset]
            )
        }
        try loader.execute("commit")

        #expect(try fixture.state.requeue(appID: fixture.appID) == 2)
        let links = try fixture.connection.query("select user_id, merged from cardinal.identity_links")
        #expect(links.count == 1)
        #expect(try links.first?.decode(String.self, at: 0) == "member")
        #expect(try links.first?.decode(Bool.self, at: 1) == true)
        #expect(try fixture.state.fold() == 2)
        #expect(try fixture.uniqueImpressions() == (unique: 1, differences: 0))
    }

    @Test("A fold whose snapshot began before a rebuild queued a bulk load fails instead of folding the load twice")
    func foldOlderThanTheRebuildFails() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        // An older transaction left open keeps the load above the fold's xmin, as on a busy cluster: the fold
        // would record the load as folded by it, a key the rebuild has recorded already.
        let holder = try fixture.database.connect()
        try holder.execute("begin")
        try holder.execute("select pg_current_xact_id()")
        let loader = try fixture.database.connect()
        try loader.execute("begin")
        try fixture.storeImpressions(of: ["late1", "late2"], on: loader)
        try loader.execute("commit")

        // The fold's snapshot sees the load pending; the rebuild commits before the fold takes the lock.
        let folder = try fixture.database.connect()
        try folder.execute("begin isolation level repeatable read")
        try folder.execute("select 1")
        #expect(try fixture.state.requeue(appID: fixture.appID) == 2)
        let error = #expect(throws: PostgresError.self) {
            try folder.query("select cardinal.fold_report_state()")
        }
        #expect(error?.sqlState == .serializationFailure)
        try folder.execute("rollback")
        try holder.execute("rollback")

        #expect(try fixture.state.fold() == 2)
        #expect(try fixture.state.fold() == 0)
        #expect(try fixture.uniqueImpressions() == (unique: 2, differences: 0))
    }

    @Test("A rebuild in the transaction that stores events leaves them, and those it stores after, to the fold")
    func requeueLeavesItsOwnTransactionPending() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        try fixture.connection.execute("begin")
        try fixture.storeImpressions(of: ["own1"], on: fixture.connection)
        #expect(try fixture.state.requeue(appID: fixture.appID) == 1)
        try fixture.storeImpressions(of: ["own2"], on: fixture.connection)
        try fixture.connection.execute("commit")

        #expect(try fixture.state.queuedEvents() == 0)
        #expect(try fixture.state.fold() == 2)
        #expect(try fixture.uniqueImpressions() == (unique: 2, differences: 0))
    }

    @Test("A fold refuses another cluster's watermark, and after the rebase and a rebuild every event is counted and new ones fold")
    func foldRefusesAWatermarkAheadOfTheCluster() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        try fixture.storeImpressions(of: ["u1", "u2"], on: fixture.connection)
        #expect(try fixture.state.fold() == 2)
        // What a logical dump restored into a younger cluster looks like: the watermark a million ids ahead.
        try fixture.connection.execute(
            "update cardinal.report_fold_watermark set folded_below = folded_below + 1000000, next_xid = next_xid + 1000000"
        )
        try fixture.storeImpressions(of: ["u3"], on: fixture.connection)
        // Without 0070 the fold took nothing and the report missed u3, with no error anywhere.
        #expect(try fixture.uniqueImpressions().unique == 2)
        let refused = #expect(throws: PostgresError.self) { try fixture.state.fold() }
        #expect(refused?.sqlState == SQLState(rawValue: "55000"), "\(String(describing: refused))")
        #expect(refused?.message.contains("ahead of this cluster's next transaction id") == true)
        // cardinald folds only when the backlog read finds events, which it would not: that read raises too.
        #expect(throws: PostgresError.self) { try fixture.state.backlog() }

        let cleared = try fixture.connection.query("select cardinal.rebase_report_state_watermark()")
            .first?.decode(Int64.self, at: 0)
        #expect(cleared == 3)
        #expect(try fixture.state.requeue(appID: fixture.appID) == 3)
        while try fixture.state.queuedEvents() > 0 {
            _ = try fixture.state.fold()
        }
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))
        try fixture.storeImpressions(of: ["u4"], on: fixture.connection)
        #expect(try fixture.state.fold() == 1)
        #expect(try fixture.uniqueImpressions() == (unique: 4, differences: 0))

        // On a healthy cluster the rebase would hide pending events from the fold: it refuses.
        #expect(throws: PostgresError.self) {
            try fixture.connection.query("select cardinal.rebase_report_state_watermark()")
        }
    }
}
