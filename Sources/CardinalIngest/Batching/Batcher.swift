import CardinalStore
import Foundation

/// Runs group commit: requests submit their events, `writerCount` dedicated threads take batches from the
/// shared `BatchingStateMachine` and write each through their own `BatchSink`, then complete every submission
/// of the batch. Blocking database calls stay on these threads, never on the HTTP thread or Swift's
/// cooperative pool.
final class Batcher: Sendable {
    private let state: ConditionProtected<BatchingStateMachine<Submission>>
    private let sinks: [any BatchSink & Sendable]
    private let metrics: IngestMetrics
    private let finished = DispatchGroup()

    /// A batcher that queues submissions at once and writes them once ``start()`` has started the writers.
    init(limits: BatchingStateMachine<Submission>.Limits, sinks: [any BatchSink & Sendable], metrics: IngestMetrics) {
        self.state = ConditionProtected(BatchingStateMachine(limits: limits))
        self.sinks = sinks
        self.metrics = metrics
    }

    /// The number of writer threads ``start()`` starts.
    var writerCount: Int { sinks.count }

    /// Starts one writer thread per sink.
    func start() {
        for (index, sink) in sinks.enumerated() {
            finished.enter()
            let thread = Thread { [self] in
                runWriter(sink)
                finished.leave()
            }
            thread.name = "cardinal-writer-\(index)"
            thread.start()
        }
    }

    /// Queues a submission; it is completed later from a writer thread, or now when it is turned away.
    func submit(_ submission: Submission) {
        let action = state.withLock { machine in
            let action = machine.submit(submission, now: .now)
            metrics.setQueuedEvents(machine.queuedEvents)
            return action
        }
        switch action {
        case .queued:
            break
        case .queuedAndSignal:
            state.signalAll()
        case .rejectQueueFull:
            submission.complete(.notWritten(.queueFull))
        case .rejectShuttingDown:
            submission.complete(.notWritten(.shuttingDown))
        }
    }

    /// Stops accepting submissions, lets the writers drain the queue, and returns when they have stopped.
    func shutDown() {
        state.withLock { $0.shutDown() }
        state.signalAll()
        finished.wait()
    }

    private func runWriter(_ sink: any BatchSink) {
        while true {
            var expired: [Submission] = []
            var batch: [Submission]?
            var stop = false
            state.withLockThenWait { machine in
                let action = machine.takeBatch(now: .now, expired: &expired)
                metrics.setQueuedEvents(machine.queuedEvents)
                switch action {
                case let .write(submissions):
                    batch = submissions
                    return .proceed
                case .stop:
                    stop = true
                    return .proceed
                case .waitForWork:
                    return .forever
                case let .waitUntil(instant):
                    return .until(Date.now.addingTimeInterval(Self.seconds(instant - .now)))
                }
            }
            for submission in expired {
                submission.complete(.notWritten(.timedOut))
            }
            if let batch {
                write(batch, to: sink)
            }
            if stop {
                return
            }
        }
    }

    /// Writes a batch, bisecting it when the database refuses its data, and completes every submission.
    private func write(_ batch: [Submission], to sink: any BatchSink) {
        let outcomes = RefusalBisection(sink: sink).write(batch)
        for (submission, outcome) in zip(batch, outcomes) {
            submission.complete(outcome)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
