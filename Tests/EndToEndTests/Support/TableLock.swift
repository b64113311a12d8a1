import PostgresClient

/// `lock table cardinal.events in share mode`, held by the test in a transaction of its own, which blocks
/// every writer's insert until `release()`.
final class TableLock {
    private let holder: PostgresConnection
    private let observer: PostgresConnection
    private var held = true

    init(_ fixture: IngestFixture) throws {
        holder = try fixture.database.connect()
        // pg_stat_activity is read once per transaction, so the waiting writers are watched from another session.
        observer = try fixture.database.connect()
        try holder.executeScript("begin; lock table cardinal.events in share mode")
    }

    /// Waits until `count` other sessions wait for a lock.
    func waitForBlockedSessions(_ count: Int) throws {
        try Poll.until("\(count) writer(s) to wait for the table lock") {
            try observer.query(
                """
                select count(*) from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
                """
            )[0].decode(Int.self, at: 0) == count ? true : nil
        }
    }

    /// Lets the writers go on. Idempotent.
    func release() {
        if held {
            held = false
            _ = try? holder.executeScript("commit")
        }
    }
}
