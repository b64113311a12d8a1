import Synchronization

/// A value shared by client threads and the test, behind a lock.
final class Locked<Value>: Sendable {
    fileprivate let mutex: Mutex<Value>

    init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value locked.
    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value.
    var value: Value {
        mutex.withLock { $0 }
    }
}
