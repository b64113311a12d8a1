import Dispatch
import Synchronization

/// A computation started on a thread of the global pool while the caller goes on; ``value()`` waits for it.
///
/// For blocking work (a report query on a connection of its own): the thread is held until the work ends.
final class BackgroundComputation<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `work`.
    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [self] in
            let result = Result { try work() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// Waits for the work to end and returns what it returned, or throws what it threw. Call it once.
    func value() throws -> Value {
        finished.wait()
        return try outcome.withLock { $0! }.get()
    }
}
