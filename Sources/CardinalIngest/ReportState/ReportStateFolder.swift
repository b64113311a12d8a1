import CardinalLogging
import CardinalStore
import Foundation
import PostgresClient

/// Folds the events the writers stored into the report state, every `interval`, on a thread and a database
/// connection of its own (the report state of `SQL/code/050`–`080`). Ingest never
/// waits for it: the writers only store, the fold finds what they stored since its last watermark, and the
/// reports count those unfolded events too, so a slow fold costs report speed, not freshness. Several daemons may run one each; the database lets one fold at a time.
final class ReportStateFolder: Sendable {
    private struct State {
        var stopping = false
        /// Of the folding thread's connection, once it has one.
        var canceller: PostgresCanceller?
    }

    private let state = ConditionProtected(State())
    private let finished = DispatchGroup()
    private let connectionString: String
    private let interval: Duration
    private let metrics: IngestMetrics
    private let logger: Logger

    /// A folder that folds once ``start()`` has started its thread.
    init(connectionString: String, interval: Duration, metrics: IngestMetrics, logger: Logger) {
        self.connectionString = connectionString
        self.interval = interval
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts the folding thread.
    func start() {
        finished.enter()
        let thread = Thread { [self] in
            Self.run(connectionString: connectionString, interval: interval, state: state, metrics: metrics,
                     logger: logger)
            finished.leave()
        }
        thread.name = "cardinal-report-state-folder"
        thread.start()
    }

    /// Cancels the fold in progress, if any, and returns when the thread has ended. After a long outage a fold
    /// can take minutes, longer than a service manager waits for a stop; cancelled, it rolls back, and the next
    /// fold (of this daemon after a restart, or of another) takes its events. The thread checks for a stop
    /// before each statement of a round, so only a cancel that lands between that check and the statement's
    /// start is lost (that fold then runs to its end).
    func stop() {
        let canceller = state.withLock { state in
            state.stopping = true
            return state.canceller
        }
        state.signalAll()
        if let canceller {
            // A cancel opens a connection of its own, which a silent network would hold for minutes; the fold's
            // own connection gives up sooner (tcp_user_timeout), so the stop waits for that, not for the cancel.
            DispatchQueue.global().async { canceller.cancelRunningStatement() }
        }
        finished.wait()
    }

    private static func run(
        connectionString: String, interval: Duration, state: ConditionProtected<State>, metrics: IngestMetrics,
        logger: Logger
    ) {
        var connection: PostgresConnection?
        while !waitOrStop(interval, state) {
            do {
                let live = try connection ?? PostgresConnection(connectionString: connectionString)
                if connection == nil {
                    state.withLock { $0.canceller = live.makeCanceller() }
                    connection = live
                }
                try foldOnce(ReportStateStore(connection: live), metrics: metrics, logger: logger) {
                    state.withLock { $0.stopping }
                }
            } catch let error as PostgresError where error.sqlState == .serializationFailure {
                // A rebuild raced this fold; nothing was folded, and the next round takes it all.
                continue
            } catch {
                if state.withLock({ $0.stopping }) {
                    return
                }
                if let broken = connection, !broken.isUsable {
                    connection = nil
                }
                logger.log(.warning, "report state fold failed; retrying", ["db.error": String(describing: error)])
            }
        }
    }

    private static func foldOnce(
        _ store: ReportStateStore, metrics: IngestMetrics, logger: Logger, isStopping: () -> Bool
    ) throws {
        guard !isStopping() else {
            return
        }
        let backlog = try store.backlog()
        metrics.setFoldBacklog(backlog)
        guard backlog.events > 0, !isStopping() else {
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
    private static func waitOrStop(_ interval: Duration, _ state: ConditionProtected<State>) -> Bool {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            var stop = false
            var due = false
            state.withLockThenWait { state in
                stop = state.stopping
                due = Date() >= deadline
                return stop || due ? .proceed : .until(deadline)
            }
            if stop || due {
                return stop
            }
        }
    }
}
