import Foundation

/// A value guarded by a lock, with a condition variable to wait for it to change: what writer threads need to
/// sleep until a batch is due. (`Mutex` from Synchronization has no condition variable.)
final class ConditionProtected<Value> {
    private let condition = NSCondition()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value locked.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the value locked; when it returns a time, sleeps (unlocked) until then or a signal,
    /// and when it returns `.forever`, until a signal. The caller loops.
    func withLockThenWait(_ body: (inout Value) -> WaitDecision) {
        condition.lock()
        defer { condition.unlock() }
        switch body(&value) {
        case .proceed:
            return
        case .forever:
            condition.wait()
        case let .until(date):
            _ = condition.wait(until: date)
        }
    }

    /// Wakes every waiting thread, after changing the value.
    func signalAll() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    enum WaitDecision {
        case proceed
        case forever
        case until(Date)
    }
}

// Every access to `value` happens with `condition` locked, which serialises threads; `Value` may be
// non-Sendable only because it never leaves the lock.
extension ConditionProtected: @unchecked Sendable {}
