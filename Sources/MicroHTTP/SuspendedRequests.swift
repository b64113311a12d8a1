import Synchronization

/// A request whose connection may be suspended while it waits for a reply.
protocol SuspendedRequest: AnyObject, Sendable {
    /// When the request must be answered by, suspended or not.
    var deadline: ContinuousClock.Instant { get }
    /// Resumes the connection without a reply, so that the stopping daemon can close it.
    func abandon()
    /// Answers with `response` because the deadline passed; a reply given later is ignored.
    func expire(with response: HTTPResponse)
}

/// The requests whose connections are suspended, so that stopping the server can resume them first and a
/// request past its deadline is answered although libmicrohttpd never times out a suspended connection.
///
/// libmicrohttpd forbids `MHD_stop_daemon` while a connection is suspended ("You must explicitly resume
/// all connections before stopping the daemon", `MHD_suspend_connection` in microhttpd.h); this set is
/// how ``HTTPServer/stop()`` finds them.
final class SuspendedRequests: Sendable {
    private struct State {
        var stopping = false
        var requests: [ObjectIdentifier: any SuspendedRequest] = [:]
    }

    private let state = Mutex(State())

    /// Records a request about to be suspended; `false` once the server is stopping.
    func insert(_ request: any SuspendedRequest) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.requests[ObjectIdentifier(request)] = request
            return true
        }
    }

    func remove(_ request: any SuspendedRequest) {
        _ = state.withLock { $0.requests.removeValue(forKey: ObjectIdentifier(request)) }
    }

    /// The requests suspended past their deadline at `now`.
    func expired(at now: ContinuousClock.Instant) -> [any SuspendedRequest] {
        state.withLock { $0.requests.values.filter { $0.deadline <= now } }
    }

    /// Refuses further suspensions and returns every request suspended now.
    func beginStopping() -> [any SuspendedRequest] {
        state.withLock { state in
            state.stopping = true
            defer { state.requests = [:] }
            return Array(state.requests.values)
        }
    }
}
