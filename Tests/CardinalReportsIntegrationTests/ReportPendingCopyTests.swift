import CardinalReports
import CardinalStore
import Foundation
import PostgresClient
import Testing
import TestSupport

/// A report reads the events not folded yet once, into a copy of its REPEATABLE READ transaction
/// (`cardinal.take_report_pending_copy`), instead of once per view that reads them.
@Suite struct ReportPendingCopyTests {
    @Test("The reader role copies every pending event once, and only in a REPEATABLE READ transaction")
    func copyOnlyInRepeatableRead() throws {
        let database = try TestDatabase.migrated(prefix: "copy")
        defer { database.drop() }
        let connection = try database.connect()
        let appID = try AppStore(connection: connection).create(name: "copies", reportTimeZone: "Asia/Tokyo").id
        // 150 devices, each an anonymous impression and a login's impression: 300 pending events.
        try DeviceLoginsWorkload.insert(into: connection, appID: appID, devices: 150, loginType: "impression")
        try connection.execute("set role cardinal_reader")
        func copy() throws -> Int64? {
            try connection.query("select cardinal.take_report_pending_copy()")[0].decode(Int64?.self, at: 0)
        }

        // Autocommit and READ COMMITTED: a fold committing between the copy and the state's read would count
        // its events twice, so nothing is copied.
        let autocommit = try copy()
        let readCommitted = try connection.transaction(isolation: .readCommitted) { _ in try copy() }
        #expect(autocommit == nil && readCommitted == nil)
        let (first, second, pending) = try connection.transaction(isolation: .repeatableRead) { connection in
            // Once per transaction; the reads return the copy.
            (try copy(), try copy(),
             try connection.query("select count(*) from cardinal.report_unfolded_events()")[0].decode(Int64.self, at: 0))
        }
        #expect(first == 300 && second == nil && pending == 300)
        // The copy ended with its transaction.
        let gone = try connection.query("select to_regclass('pg_temp.report_fold_events') is null")[0]
            .decode(Bool.self, at: 0)
        #expect(gone)
    }

    @Test("With every event folded, the copy creates no table, the reads return no row, and the report is the same")
    func nothingPendingCopiesNothing() throws {
        let database = try TestDatabase.migrated(prefix: "copy")
        defer { database.drop() }
        let connection = try database.connect()
        let appID = try AppStore(connection: connection).create(name: "copies", reportTimeZone: "Asia/Tokyo").id
        try DeviceLoginsWorkload.insert(into: connection, appID: appID, devices: 40, loginType: "click")
        #expect(try ReportStateStore(connection: connection).fold() == 80)
        let session = try ReportSession(connection: connection)
        let today = ReportDate(utcDayOf: Date())
        let scope = ReportScope(app: "copies", from: today.adding(days: -1), to: today.adding(days: 1))

        let (copied, flag, table, pending, overCopy) = try session.inOneSnapshot {
            (try connection.query("select cardinal.take_report_pending_copy()")[0].decode(Int64?.self, at: 0),
             try connection.query("select current_setting('cardinal.report_fold_snapshot', true)")[0]
                .decode(String?.self, at: 0),
             try connection.query("select to_regclass('pg_temp.report_fold_events')::text")[0]
                .decode(String?.self, at: 0),
             try connection.query("select count(*) from cardinal.report_unfolded_events()")[0]
                .decode(Int64.self, at: 0),
             try session.uniqueImpressions(scope))
        }
        // The report's own call found nothing to copy, so the second call is refused like any after a copy.
        #expect(copied == nil && flag == "none pending" && table == nil && pending == 0)
        // Read outside a REPEATABLE READ transaction, where no copy is taken, the numbers are the same.
        #expect(try session.uniqueImpressions(scope) == overCopy)
        let card = try #require(overCopy.first { $0.campaignID == DeviceLoginsWorkload.campaign })
        #expect(card.uniqueImpressions == 40 && card.uniqueClicks == 40)
    }

    @Test("A report over its pending copy gives the rows it gives reading the pending events, logins included")
    func sameRowsOverTheCopy() throws {
        let database = try TestDatabase.migrated(prefix: "copy")
        defer { database.drop() }
        let connection = try database.connect()
        let appID = try AppStore(connection: connection).create(name: "copies", reportTimeZone: "Asia/Tokyo").id
        // Devices that see the card anonymously and log in with a click, then a push to the first 60 users:
        // identity merges among the pending events, sends, taps and influenced opens.
        try DeviceLoginsWorkload.insert(into: connection, appID: appID, devices: 120, loginType: "click")
        try DeviceLoginsWorkload.insertPushCampaign(into: connection, appID: appID, users: 60)
        let session = try ReportSession(connection: connection)
        let today = ReportDate(utcDayOf: Date())
        let scope = ReportScope(app: "copies", from: today.adding(days: -1), to: today.adding(days: 1))

        let copied = try session.inOneSnapshot {
            try connection.query("select current_setting('cardinal.report_fold_snapshot', true)")[0]
                .decode(String?.self, at: 0)
        }
        #expect(copied == "taken")
        let read = try session.uniqueImpressions(scope)
        let report = try UniqueImpressionsReport.run(session: session, scope: scope)
        #expect(report.rows == read)
        // Each device's history is its user's: 120 users saw the card, and each clicked once.
        let card = try #require(report.rows.first { $0.campaignID == DeviceLoginsWorkload.campaign })
        #expect(card.uniqueImpressions == 120 && card.uniqueClicks == 120)
        let push = try #require(report.rows.first { $0.campaignID == DeviceLoginsWorkload.pushCampaign })
        #expect(push.uniqueRecipients == 60)
    }
}
