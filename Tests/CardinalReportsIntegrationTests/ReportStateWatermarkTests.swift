import CardinalStore
import Foundation
import PostgresClient
import Testing
import TestSupport

/// The fold's watermark (0021): writers commit in another order than their transactions began, and every
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

        /// Stores one impression per user on `writer`, in whatever transaction `writer` has open.
        func storeImpressions(of users: [String], on writer: PostgresConnection) throws {
            for user in users {
                try writer.execute(
                    """
                    insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
                    values ($1, gen_random_uuid(), 'impression', 'content_card', now(), $2, 'spring')
                    """,
                    [appID, user]
                )
            }
        }

        /// The campaign's unique impressions today, from state, and how many of its rows differ from the
        /// reference over raw events.
        func uniqueImpressions() throws -> (unique: Int64, differences: Int64) {
            let arguments = "'watermark', $1, $1, false, 'spring'"
            let row = try connection.query(
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

    @Test("Rebuilding an app while some of its events wait for the fold counts each of them once")
    func requeueLeavesUnfoldedEventsToTheFold() throws {
        let fixture = try Fixture()
        defer { fixture.database.drop() }
        let writer = try fixture.database.connect()
        try fixture.storeImpressions(of: ["c1", "c2"], on: writer)
        #expect(try fixture.state.fold() == 2)
        try fixture.storeImpressions(of: ["c3"], on: writer)

        // Two folded events go back to the queue; the third is still past the watermark.
        #expect(try fixture.state.requeue(appID: fixture.appID) == 3)
        #expect(try fixture.state.backlog().events == 3)
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))
        #expect(try fixture.state.fold() == 3)
        #expect(try fixture.uniqueImpressions() == (unique: 3, differences: 0))
    }
}
