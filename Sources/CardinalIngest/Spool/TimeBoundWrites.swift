import CardinalStore
import Foundation

/// Runs one sink's writes on a helper thread of its own, so that a writer thread can stop waiting for a commit
/// at a deadline (and spool the batch instead) while the database call goes on.
///
/// At most one call is in flight: the sink's connection serves one thread at a time. While a call that outlived
/// its deadline still runs, further writes are refused at once (`.busy`) rather than queued behind it. The result
/// of an abandoned call is dropped; if it committed after all, the spooled copy of its batch replays as
/// duplicates and stores nothing.
final class TimeBoundWrites {
    /// What became of a write.
    enum Outcome {
        case finished(Result<[Bool], WriteFailure>)
        /// The deadline passed first; the call goes on, and its result will be dropped.
        case timedOut
        /// An earlier call that timed out still runs; this one was not started.
        case busy
    }

    private struct Job {
        let events: [EventRecord]
        let rejections: [RejectionRecord]
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var job: Job?
    private var result: Result<[Bool], WriteFailure>?
    private var isRunning = false
    private var isStopping = false

    /// Starts the helper thread, which alone uses `sink` from now on.
    /// - Warning: call `stop()` when done; the thread keeps this object alive until then.
    init(sink: any BatchSink & Sendable, name: String) {
        let thread = Thread { [self] in serve(sink) }
        thread.name = name
        thread.start()
    }

    /// Lets the helper thread end once its current call (if any) returns.
    func stop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Writes a batch, waiting for the result until `deadline`.
    func write(events: [EventRecord], rejections: [RejectionRecord], deadline: ContinuousClock.Instant) -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        guard !isRunning else {
            return .busy
        }
        job = Job(events: events, rejections: rejections)
        result = nil
        isRunning = true
        condition.broadcast()
        let until = Date.now.addingTimeInterval(Self.seconds(deadline - .now))
        while isRunning {
            if !condition.wait(until: until), isRunning {
                return .timedOut
            }
        }
        return .finished(result!)
    }

    private func serve(_ sink: any BatchSink) {
        while true {
            condition.lock()
            while job == nil, !isStopping {
                condition.wait()
            }
            guard let job else {
                condition.unlock()
                return
            }
            self.job = nil
            condition.unlock()
            let outcome = Result { () throws(WriteFailure) in try sink.write(events: job.events, rejections: job.rejections) }
            condition.lock()
            result = outcome
            isRunning = false
            condition.broadcast()
            condition.unlock()
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        max(0, Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

// Every mutable property is read and written with `condition` locked; the sink is used by the helper thread
// alone.
extension TimeBoundWrites: @unchecked Sendable {}
