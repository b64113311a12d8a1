import CardinalCore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Synchronization
import Testing
import TestSupport

@testable import CardinalStore

/// `synchronous_standby_names` can only be set for a whole server (postgresql.conf, ALTER SYSTEM), and it makes
/// every commit wait: these tests use a throwaway cluster of their own, never the shared test cluster.
///
/// Measured on PostgreSQL 15: `statement_timeout` does not end the wait (it is disabled before the commit
/// record is written), so a writer whose standby is down hangs until its commit is cancelled. A cancel
/// (`pg_cancel_backend`, an operator unblocking a stuck daemon) ends the wait with a WARNING and a commit
/// reported as successful; that is what the test does.
@Suite struct SynchronousReplicationTests {
    @Test("A commit whose wait for a missing synchronous standby is cancelled is reported as not replicated")
    func unreplicatedCommitIsNotDurable() throws {
        let cluster = try TemporaryCluster()
        defer { cluster.destroy() }
        let url = try cluster.createDatabase("syncrep")
        let setup = try PostgresConnection(connectionString: url)
        try TestDatabase.migrator(for: setup).migrate()
        let app = try AppStore(connection: setup).create(name: "shop")

        try setup.executeScript("alter system set synchronous_standby_names = 'nonexistent'")
        try setup.query("select pg_reload_conf()")
        try Self.waitForSetting(url: url, value: "nonexistent")

        let canceller = SyncRepCanceller(url: url)
        defer { canceller.stop() }
        let writer = try EventWriter.connect(connectionString: url, statementTimeout: .seconds(30))
        let event = Event(id: UUID(), type: .impression, channel: .banner, time: .now, userID: "u1",
                          source: .campaign("welcome"))
        let records = [EventRecord(appID: app.id, event: event, receivedAt: .now)]
        let error = #expect(throws: EventWriteError.self) { try writer.write(events: records, rejections: []) }
        guard case .commitNotReplicated? = error else {
            Issue.record("expected commitNotReplicated, got \(String(describing: error))")
            return
        }
        #expect(canceller.cancelled > 0)
        // What PostgreSQL did regardless: committed on the primary.
        let stored = try setup.query("select count(*) from cardinal.events where id = $1", [event.id])
        #expect(try stored[0].decode(Int.self, at: 0) == 1)

        // Once the setting is gone, the same writer commits normally again.
        canceller.stop()
        try setup.executeScript("alter system reset synchronous_standby_names")
        try setup.query("select pg_reload_conf()")
        try Self.waitForSetting(url: url, value: "")
        let other = Event(id: UUID(), type: .impression, channel: .banner, time: .now, userID: "u2",
                          source: .campaign("welcome"))
        #expect(try writer.write(events: [EventRecord(appID: app.id, event: other, receivedAt: .now)], rejections: []) == [true])
    }

    @Test("Only the warning of a cancelled wait for synchronous replication counts, not other warnings")
    func recognisesTheWarning() {
        let cancelled = PostgresNotice(
            severity: "WARNING", message: "canceling wait for synchronous replication due to user request",
            sqlState: SQLState(rawValue: "01000"))
        let other = PostgresNotice(severity: "WARNING", message: "there is no transaction in progress",
                                   sqlState: SQLState(rawValue: "25P01"))
        let notice = PostgresNotice(severity: "NOTICE", message: "canceling wait for synchronous replication",
                                    sqlState: nil)
        #expect(ReplicationWarningRecorder.isCancelledReplicationWait(cancelled))
        #expect(!ReplicationWarningRecorder.isCancelledReplicationWait(other))
        #expect(!ReplicationWarningRecorder.isCancelledReplicationWait(notice))
    }

    /// Waits until a new session sees `value` for synchronous_standby_names (pg_reload_conf only signals).
    private static func waitForSetting(url: String, value: String) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let connection = try PostgresConnection(connectionString: url)
            if try connection.query("show synchronous_standby_names")[0].decode(String.self, at: 0) == value {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("synchronous_standby_names did not become '\(value)' after a reload")
    }
}

/// A thread that cancels every session of a database waiting for synchronous replication (wait event
/// `SyncRep`), every 20 ms, until stopped.
private final class SyncRepCanceller: Sendable {
    private let state = Mutex((stopped: false, cancelled: 0))
    private let finished = DispatchSemaphore(value: 0)

    init(url: String) {
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            guard let connection = try? PostgresConnection(connectionString: url) else { return }
            while !state.withLock({ $0.stopped }) {
                let rows = try? connection.query("""
                    select count(*) filter (where pg_cancel_backend(pid)) from pg_stat_activity
                    where datname = current_database() and wait_event = 'SyncRep'
                    """)
                let count = (try? rows?[0].decode(Int.self, at: 0)) ?? 0
                state.withLock { $0.cancelled += count }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    /// How many waits it cancelled.
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// Stops the thread and waits for it; idempotent.
    func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if !wasStopped { finished.wait() }
    }
}
