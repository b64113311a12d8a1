import Foundation

/// A ``Service`` whose work runs on threads of its own, such as the batch writers: `start` begins the work and
/// `stop` ends it and waits for its threads. Both block, so both run on a thread made for the call, never on
/// the Swift concurrency pool, whose few threads the rest of the process needs.
public struct ThreadedService: Service {
    public let name: String
    private let start: @Sendable () -> Void
    private let stop: @Sendable () -> Void

    /// - Parameters:
    ///   - name: What the log calls the service.
    ///   - start: Starts the service's threads; returns once they run.
    ///   - stop: Stops the threads gracefully and returns once they ended.
    public init(name: String, start: @escaping @Sendable () -> Void = {}, stop: @escaping @Sendable () -> Void) {
        self.name = name
        self.start = start
        self.stop = stop
    }

    public func run() async {
        await Self.onThreadOfItsOwn(named: "cardinal-start-\(name)", start)
        await Self.untilCancelled()
        await Self.onThreadOfItsOwn(named: "cardinal-stop-\(name)", stop)
    }

    /// Runs `body` on a new thread and resumes when it has returned.
    private static func onThreadOfItsOwn(named name: String, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                continuation.resume()
            }
            thread.name = name
            thread.start()
        }
    }

    /// Returns when the current task is cancelled: an `AsyncStream` that never yields ends its iteration then.
    private static func untilCancelled() async {
        let (never, continuation) = AsyncStream<Void>.makeStream()
        for await _ in never {}
        continuation.finish()
    }
}
