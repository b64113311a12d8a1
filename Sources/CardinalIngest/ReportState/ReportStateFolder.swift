import CardinalStore
import Foundation
import PostgresClient

/// Folds the events the writers stored into the report state, every `interval`, on a thread and a database
/// connection of its own (SQL/migrations/0015_report_state.sql, 0021_report_state_watermark.sql). Ingest never
/// waits for it: the writers only store, the fold finds what they stored since its last watermark, and the
/// reports count those unfolded events too, so a slow fold costs report speed, not freshness. Several daemons may run one each; the database lets one fold at a time.
final class ReportStateFolder: Sendable {
    private let stopping: ConditionProtected<Bool>
    private let finished = DispatchGroup()

    /// Starts the folding thread.
    init(connectionString: String, interval: Duration, metrics: IngestMetrics, logger: Logger) {
        let stopping = ConditionProtected(false)
        self.stopping = stopping
        finished.enter()
        let thread = Thread { [finished] in
            Self.run(connectionString: connectionString, interval: interval, stopping: stopping, metrics: metrics,
                     logger: logger)
            finished.leave()
        }
        thread.name = "cardinal-report-state-folder"
        thread.start()
    }

    /// Stops after the fold in progress, if any, and returns when the thread has ended.
    func stop() {
        stopping.withLock { $0 = true }
        stopping.signalAll()
        finished.wait()
    }

    private static func run(
        connectionString: String, interval: Duration, stopping: ConditionProtected<Bool>, metrics: IngestMetrics,
        logger: Logger
    ) {
        var connection: PostgresConnection?
        while !waitOrStop(interval, stopping) {
            do {
                let live = try connection ?? PostgresConnection(connectionString: connectionString)
                connection = live
                try foldOnce(ReportStateStore(connection: live), metrics: metrics, logger: logger)
            } catch let error as PostgresError where error.sqlState == .serializationFailure {
                // A rebuild raced this fold; nothing was folded, and the next round takes it all.
                continue
            } catch {
                if let broken = connection, !broken.isUsable {
                    connection = nil
                }
                logger.log(.warning, "report state fold failed; retrying", ["db.error": String(describing: error)])
            }
        }
    }

    private static func foldOnce(_ store: ReportStateStore, metrics: IngestMetrics, logger: Logger) throws {
        let backlog = try store.backlog()
        metrics.setFoldBacklog(backlog)
        guard backlog.events > 0 else {
            return
        }
        let started = ContinuousClock.now
        guard let folded = try store.fold() else {
            return
        }
        metrics.recordFold(events: folded, duration: ContinuousClock.now - started)
        logger.log(.debug, "report state folded", ["state.events": String(folded)])
    }

    /// Sleeps for `interval` unless asked to stop; true when asked to stop.
    private static func waitOrStop(_ interval: Duration, _ stopping: ConditionProtected<Bool>) -> Bool {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            var stop = false
            var due = false
            stopping.withLockThenWait { isStopping in
                stop = isStopping
                due = Date() >= deadline
                return stop || due ? .proceed : .until(deadline)
            }
            if stop || due {
                return stop
            }
        }
    }
}
