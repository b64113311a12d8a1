import PostgresClient
import Synchronization

/// Remembers whether the server warned that it cancelled a commit's wait for synchronous replication.
///
/// PostgreSQL (src/backend/replication/syncrep.c, 9.1 to 17) reports a cancelled wait as a WARNING with the
/// generic SQLSTATE 01000 and the message "canceling wait for synchronous replication due to user request"
/// (statement_timeout and pg_cancel_backend both count as a user request), then reports the commit as
/// successful. Only the message tells it apart, so this matches its English text: a server whose
/// `lc_messages` translates it is not recognised (the daemon's own cluster and the Debian default use C or
/// English messages).
final class ReplicationWarningRecorder: Sendable {
    private let seen = Mutex(false)

    /// Forgets earlier warnings; call before a commit.
    func reset() {
        seen.withLock { $0 = false }
    }

    /// Looks at one notice of the connection.
    func note(_ notice: PostgresNotice) {
        guard Self.isCancelledReplicationWait(notice) else { return }
        seen.withLock { $0 = true }
    }

    /// Whether a cancelled wait was seen since the last `reset()`.
    var sawCancelledWait: Bool {
        seen.withLock { $0 }
    }

    /// Whether `notice` is the warning of a commit whose wait for synchronous replication was cancelled.
    static func isCancelledReplicationWait(_ notice: PostgresNotice) -> Bool {
        notice.severity == "WARNING" && notice.message.hasPrefix("canceling wait for synchronous replication")
    }
}
