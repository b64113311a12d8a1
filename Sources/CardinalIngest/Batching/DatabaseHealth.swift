import CardinalLogging
import Synchronization

/// Whether the writers can reach the database, as they last found out. Transitions are logged once, not on
/// every failed batch, and exported as the `cardinal_ingest_database_up` gauge.
final class DatabaseHealth: Sendable {
    private let isAvailable = Mutex(true)
    private let metrics: IngestMetrics

    init(metrics: IngestMetrics) {
        self.metrics = metrics
        metrics.setDatabaseUp(true)
    }

    func markAvailable(logger: Logger) {
        let changed = isAvailable.withLock { value in
            defer { value = true }
            return !value
        }
        if changed {
            metrics.setDatabaseUp(true)
            logger.log(.info, "database reachable again")
        }
    }

    func markUnavailable(reason: String, logger: Logger) {
        let changed = isAvailable.withLock { value in
            defer { value = false }
            return value
        }
        if changed {
            metrics.setDatabaseUp(false)
            logger.log(.error, "database unavailable; batches go to the disk spool, or get 503 without one, until it is back", ["db.error": reason])
        }
    }
}
