import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The fold's snapshot of the pending events: every step after fold_identity_links reads one copy of them,
/// which carries the part and value columns, re-queued events included. Times are UTC before 15:00, so each lies
/// on the Tokyo report day of the same number.
@Suite struct FoldSnapshotTests {
    private func fold(_ scenario: ReportScenario) throws {
        #expect(try ReportStateStore(connection: scenario.connection).fold() != nil)
    }

    /// One text cell of `sql` ("" when NULL).
    private func text(_ scenario: ReportScenario, _ sql: String) throws -> String {
        try scenario.connection.query(sql, []).first?.decode(String?.self, at: 0) ?? ""
    }

    @Test("A re-keyed device's banner placement and conversion value are folded under the user who logged in")
    func requeuedEventsKeepTheirPartAndValue() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var purchase = event(.conversion, at: scenario.time(10, "02:00"), device: "d1", conversion: "purchase")
        purchase.value = 9.5
        purchase.currency = "EUR"
        try scenario.write([
            event(.impression, .banner, at: scenario.time(10, "01:00"), device: "d1", placement: "p1"),
            purchase,
        ])
        try fold(scenario)
        // The banner's placement only: the login below is a content card, a part of its own.
        let parts = "select string_agg(user_key || ' ' || part || ' ' || impressions, ', ' order by user_key) "
            + "from cardinal.report_part_state where part = 'p1'"
        let values = "select string_agg(user_key || ' ' || amounts::text || ' ' || currencies::text, ', ' "
            + "order by user_key) from cardinal.report_conversion_value_state"
        #expect(try text(scenario, parts) == "device:d1 p1 1")
        #expect(try text(scenario, values) == "device:d1 {9.5} {EUR}")

        // u1's first event, on d1: a new user, so the device's two folded events are re-keyed to u1 and queued
        // again; the next steps fold them from the queue, with the placement and the value the queue now holds.
        try scenario.write([event(.impression, at: scenario.time(10, "03:00"), user: "u1", device: "d1")])
        try fold(scenario)
        #expect(try text(scenario, parts) == "u1 p1 1")
        #expect(try text(scenario, values) == "u1 {9.5} {EUR}")
        #expect(try text(scenario, "select count(*)::text from cardinal.report_fold_queue") == "0")
    }

    @Test("A fold reads the events past the watermark twice: once to learn logins, once for every step")
    func foldReadsTheStoredEventsTwice() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.send, .banner, at: scenario.time(10, "01:00"), user: "u1", placement: "p1"),
            event(.impression, .banner, at: scenario.time(10, "01:05"), user: "u1", placement: "p1"),
            event(.click, .inAppMessage, at: scenario.time(10, "01:10"), user: "u1", button: "b1"),
            event(.conversion, at: scenario.time(10, "02:00"), user: "u1", conversion: "purchase"),
        ])
        let (reads, scans) = try scenario.connection.transaction(isolation: .repeatableRead) { connection in
            // Each read of the stored events scans the BRIN index once for the table's tail and, when one of the
            // transactions running at the last fold stored events, once per such running transaction (0041;
            // other tests' transactions count too, but store nothing in this database: 0061).
            let scansPerRead = try connection.query(
                """
                select 1 + count(running.xid) filter (where exists (
                           select
                           from cardinal.event_storing_xids as s
                           where s.xid = any(w.running_xids)
                             and s.xid >= w.folded_below and s.xid < w.next_xid
                             and not exists (select from cardinal.report_folded_xids as x where x.xid = s.xid)))
                from cardinal.report_fold_watermark as w
                left join unnest(w.running_xids) as running (xid)
                    on running.xid >= w.folded_below and running.xid < w.next_xid
                """
            ).first?.decode(Int64.self, at: 0)
            #expect(try connection.query("select cardinal.fold_report_state()").first?.decode(Int64?.self, at: 0) == 4)
            // Bitmap scans of the stored_xid BRIN index of the events' partition, in this transaction:
            // pending_identity_links() once in fold_identity_links (twice before 0062), then
            // take_report_fold_snapshot() once. Each step used to scan it again, one to seven times: 19 reads
            // before 0038.
            let scans = try connection.query(
                """
                select max(pg_stat_get_xact_numscans(h.inhrelid))
                from pg_catalog.pg_inherits as h
                where h.inhparent = 'cardinal.events_stored_xid'::regclass
                """
            ).first?.decode(Int64.self, at: 0)
            return (scansPerRead.map { 2 * $0 }, scans)
        }
        #expect(scans == reads)
    }

    @Test("The pending read looks up the link of each device with an anonymous event once, and of no event with a user")
    func pendingReadResolvesAnonymousEventsOnly() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        // d1 and d2 log in (their links are learned by this fold); d3 stays anonymous.
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", device: "d1"),
            event(.impression, at: scenario.time(10, "01:05"), user: "u2", device: "d2"),
        ])
        try fold(scenario)
        try scenario.write([
            event(.impression, at: scenario.time(11, "01:00"), user: "u1", device: "d1"),
            event(.click, at: scenario.time(11, "01:01"), user: "u1", device: "d1"),
            event(.impression, at: scenario.time(11, "01:02"), user: "u2", device: "d2"),
            event(.impression, at: scenario.time(11, "01:03"), device: "d1"),
            event(.impression, at: scenario.time(11, "01:04"), device: "d3"),
            event(.click, at: scenario.time(11, "01:05"), device: "d1"),
        ])
        // A session of its own: a backend's statistics of its transactions wait up to a second to be flushed, and
        // until then its next transaction's counts include them (the fold's own lookups).
        let (keys, lookups) = try scenario.database.connect().transaction { connection in
            let keys = try connection.query(
                "select string_agg(user_key, ',' order by time) from cardinal.report_unfolded_events()"
            ).first?.decode(String.self, at: 0)
            // Index scans of identity_links in this transaction: one per device with an anonymous event (issue
            // 43; 0066: one per anonymous event; before, one per stored event, or on a table this small one scan
            // of all links for a hash join).
            let lookups = try connection.query(
                """
                select coalesce(sum(idx_scan), 0)::bigint
                from pg_catalog.pg_stat_xact_user_tables
                where schemaname = 'cardinal' and relname = 'identity_links'
                """
            ).first?.decode(Int64.self, at: 0)
            return (keys, lookups)
        }
        #expect(keys == "u1,u1,u2,u1,device:d3,u1")
        #expect(lookups == 2)
    }

    @Test("After a fold, the same transaction reads the stored events again, not the fold's snapshot")
    func snapshotEndsWithTheFold() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([event(.impression, at: scenario.time(10, "01:00"), user: "u1")])
        let pending = try scenario.connection.transaction(isolation: .repeatableRead) { connection in
            #expect(try connection.query("select cardinal.fold_report_state()").first?.decode(Int64?.self, at: 0) == 1)
            // The snapshot held the one impression; the stored events hold nothing unfolded once it is folded.
            return try connection.query(
                """
                select (select count(*) from cardinal.report_unfolded_events())
                       + (select count(*) from pg_catalog.pg_class where relname = 'report_fold_events'
                                                                     and relpersistence = 't')
                """
            ).first?.decode(Int64.self, at: 0)
        }
        #expect(pending == 0)
    }
}
