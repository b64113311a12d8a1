import CardinalLogging
import CardinalStore
import PostgresClient

/// Writes batches into PostgreSQL on one dedicated connection, reconnecting after the connection breaks.
///
/// While the database is down, a reconnect is attempted at most once per `reconnectInterval`; batches in
/// between fail at once with `.databaseUnavailable`, so clients get a quick 503 instead of a hang.
final class DatabaseBatchSink: BatchSink {
    private let connectionString: String
    private let reconnectInterval: Duration
    private let health: DatabaseHealth
    private let metrics: IngestMetrics
    private let logger: Logger
    private var writer: EventWriter?
    private var lastConnectAttempt: ContinuousClock.Instant?

    init(connectionString: String, reconnectInterval: Duration, health: DatabaseHealth, metrics: IngestMetrics, logger: Logger) {
        self.connectionString = connectionString
        self.reconnectInterval = reconnectInterval
        self.health = health
        self.metrics = metrics
        self.logger = logger
    }

    func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
        let writer = try connectedWriter()
        let started = ContinuousClock.now
        do {
            let inserted = try writer.write(events: events, rejections: rejections)
            metrics.recordCommit(events: events.count + rejections.count, duration: ContinuousClock.now - started)
            return inserted
        } catch let error as PostgresError {
            metrics.recordDatabaseError(sqlState: error.sqlState?.rawValue)
            if error.isConnectionProblem || !writer.isUsable {
                self.writer = nil
                health.markUnavailable(reason: error.message, logger: logger)
                throw .databaseUnavailable
            }
            if error.isTransient {
                logger.log(.warning, "batch not written; the client will retry", [
                    "db.sqlstate": error.sqlState?.rawValue ?? "-", "db.error": error.message,
                ], summarizedBy: ["db.sqlstate", "db.error"])
                throw .databaseUnavailable
            }
            if error.isDataError {
                // Not logged here: the batcher bisects the batch and logs each event it rejects.
                throw .refusedByDatabase(Self.refusal(error))
            }
            // Without the DETAIL, which may quote row data.
            throw .databaseFailed("\(error.sqlState?.rawValue ?? "-"): \(error.message)")
        } catch EventWriteError.commitNotReplicated {
            // The server's warning carries the generic SQLSTATE 01000.
            metrics.recordDatabaseError(sqlState: "01000")
            logger.log(.warning, "batch committed on the primary but not confirmed by a synchronous standby; answered 503", [
                "ingest.events": String(events.count),
            ])
            throw .notReplicated
        } catch EventWriteError.timeOutsidePartitionRange(let error) {
            metrics.recordDatabaseError(sqlState: error.sqlState?.rawValue)
            throw .refusedByDatabase(DatabaseRefusal(
                code: .timeTooOld,
                message: "field \"time\" is outside the range the database keeps events for "
                    + "(cardinal.settings.retention_days, or more than a year ahead)"))
        } catch {
            throw .databaseFailed(String(describing: error))
        }
    }

    /// The rejection of an event refused with `error`: its SQLSTATE and constraint, not its DETAIL, which
    /// quotes the row, nor its message, which may quote a value (`invalid input syntax for type …: "…"`).
    static func refusal(_ error: PostgresError) -> DatabaseRefusal {
        let sqlState = error.sqlState?.rawValue ?? "-"
        let what = switch error.sqlState?.errorClass {
        case "23": "violates constraint \(error.constraint.map { "\"\($0)\"" } ?? "(unnamed)")"
        case "54": "exceeds a limit of PostgreSQL (such as the size of an index entry)"
        default: "holds a value PostgreSQL cannot store"
        }
        return DatabaseRefusal(
            code: .databaseRefused,
            message: "the database refused the event: it \(what) (SQLSTATE \(sqlState)); it is kept with the rejections")
    }

    private func connectedWriter() throws(WriteFailure) -> EventWriter {
        if let writer {
            return writer
        }
        let now = ContinuousClock.now
        if let last = lastConnectAttempt, now - last < reconnectInterval {
            throw .databaseUnavailable
        }
        lastConnectAttempt = now
        do {
            // A hung server must not hold a batch, and the requests waiting on it, forever.
            let writer = try EventWriter.connect(connectionString: connectionString, statementTimeout: .seconds(30))
            self.writer = writer
            health.markAvailable(logger: logger)
            return writer
        } catch {
            metrics.recordDatabaseError(sqlState: nil)
            health.markUnavailable(reason: String(describing: error), logger: logger)
            throw .databaseUnavailable
        }
    }
}

// A sink is handed to one writer thread when the batcher starts and used by that thread alone from then on;
// its mutable connection state never crosses threads.
extension DatabaseBatchSink: @unchecked Sendable {}

extension PostgresError {
    /// A failure that says nothing about the data and may pass on a retry: a timeout, a deadlock or
    /// serialization failure, a lock not granted, resources exhausted, or a server that is read-only after a
    /// failover. The client gets a 503 to retry; only data errors split a batch.
    fileprivate var isTransient: Bool {
        guard let sqlState else {
            return false
        }
        return ["40", "53", "57"].contains(sqlState.errorClass)
            || [SQLState.lockNotAvailable, .readOnlySQLTransaction].contains(sqlState)
    }
}
