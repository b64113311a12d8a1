import Synchronization

/// The requests whose connections are suspended, so that stopping the server can resume them first.
///
/// libmicrohttpd forbids `MHD_stop_daemon` while a connection is suspended ("You must explicitly resume
/// all connections before stopping the daemon", `MHD_suspend_connection` in microhttpd.h); this set is
/// how ``HTTPServer/stop()`` finds them.
final class SuspendedRequests: Sendable {
    private struct State {
        var stopping = false
        var responders: [ObjectIdentifier: HTTPResponder] = [:]
    }

    private let state = Mutex(State())

    /// Records a request about to be suspended; `false` once the server is stopping.
    func insert(_ responder: HTTPResponder) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.responders[ObjectIdentifier(responder)] = responder
            return true
        }
    }

    func remove(_ responder: HTTPResponder) {
        _ = state.withLock { $0.responders.removeValue(forKey: ObjectIdentifier(responder)) }
    }

    /// Refuses further suspensions and returns every request suspended now.
    func beginStopping() -> [HTTPResponder] {
        state.withLock { state in
            state.stopping = true
            defer { state.responders = [:] }
            return Array(state.responders.values)
        }
    }
}
