import Foundation
import Synchronization

/// Answers suspended requests whose deadline passed: libmicrohttpd times out idle connections only, and a
/// suspended one is never idle in its eyes, so without this a request whose handler (or admission) never
/// answers would hold its connection forever.
final class DeadlineWatchdog: Sendable {
    private let suspendedRequests: SuspendedRequests
    private let response: HTTPResponse
    private let interval: Duration
    private let stopped = Atomic(false)

    /// - Parameter interval: how often to look; a request is answered at most this late.
    init(suspendedRequests: SuspendedRequests, response: HTTPResponse, interval: Duration = .milliseconds(100)) {
        self.suspendedRequests = suspendedRequests
        self.response = response
        self.interval = interval
    }

    /// Starts looking, on a thread of its own.
    func start() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                for request in suspendedRequests.expired(at: .now) {
                    request.expire(with: response)
                }
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18
                             + Double(interval.components.seconds))
            }
        }
        thread.name = "http-deadline-watchdog"
        thread.start()
    }

    /// Stops looking (within one interval).
    func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
