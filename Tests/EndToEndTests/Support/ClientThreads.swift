import Dispatch
import Foundation

/// Load from several client threads at once: real threads, because every client blocks on its socket,
/// and the Swift concurrency pool of a 2-core machine has only two.
final class ClientThreads: Sendable {
    private let finished = DispatchGroup()

    /// Starts `count` threads, each running `body` with its index.
    init(count: Int, name: String, _ body: @escaping @Sendable (Int) -> Void) {
        for index in 0..<count {
            finished.enter()
            let thread = Thread { [finished] in
                body(index)
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Waits until every thread has returned.
    /// - Returns: `false` when they are still busy after `timeout` (a hung daemon; the test fails).
    func join(timeout: Duration = .seconds(600)) -> Bool {
        finished.wait(timeout: .now() + timeout.timeInterval) == .success
    }

    /// Runs `count` threads and waits for all of them.
    static func run(count: Int, name: String, timeout: Duration = .seconds(600), _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        ClientThreads(count: count, name: name, body).join(timeout: timeout)
    }
}
