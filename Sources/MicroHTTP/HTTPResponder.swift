import CMicroHTTPD
import Synchronization

/// Completes one request, exactly once, from any thread, possibly long after the handler returned.
///
/// When the handler returns without calling ``respond(_:)`` the connection is suspended
/// (`MHD_suspend_connection`), so no server thread waits for the answer; ``respond(_:)`` then resumes it
/// (`MHD_resume_connection`). See <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dflow>.
///
/// - Warning: Only the first call counts. Later calls, and calls after the client went away or the server
///   stopped, are ignored, so a late answer (a timed-out batch, say) is harmless.
public final class HTTPResponder: Sendable {
    private enum Target: Sendable {
        case connection(MHDConnection, SuspendedRequests)
        case sink(@Sendable (HTTPResponse) -> Void)
    }

    private let machine = Mutex(ReplyStateMachine())
    private let target: Target

    init(connection: MHDConnection, suspendedRequests: SuspendedRequests) {
        target = .connection(connection, suspendedRequests)
    }

    /// A responder tied to no connection, for testing handlers without a server: the first response goes
    /// to `sink` (on the thread that calls ``respond(_:)``); later ones are ignored, as on a real server.
    /// - Parameter sink: Receives the response.
    public init(capturingInto sink: @escaping @Sendable (HTTPResponse) -> Void) {
        target = .sink(sink)
    }

    /// Sends `response` to the client, unless this request was already answered or is gone.
    /// - Parameter response: The response to queue.
    public func respond(_ response: HTTPResponse) {
        switch target {
        case .sink(let sink):
            if machine.withLock({ $0.respond(response) }) == .store { sink(response) }
        case .connection(let connection, let suspendedRequests):
            machine.withLock { machine in
                guard machine.respond(response) == .resume else { return }
                // SAFETY: the state was `.suspended`, so the connection is alive: libmicrohttpd frees a
                // suspended connection only after a resume, and only this call or `abandon` (both under this
                // lock) resumes it. Resuming under the lock keeps `HTTPServer.stop` from stopping the daemon
                // between our state change and the resume.
                MHD_resume_connection(connection.pointer)
                suspendedRequests.remove(self)
            }
        }
    }

    /// Called on the server thread once the handler returned; says what the access handler must do.
    func handlerReturned() -> ReplyStateMachine.HandlerReturnedAction {
        guard case .connection(let connection, let suspendedRequests) = target else {
            preconditionFailure("a capturing responder is never given to the server")
        }
        return machine.withLock { machine in
            let action = machine.handlerReturned { suspendedRequests.insert(self) }
            if case .suspend = action {
                // SAFETY: we are inside the access handler for this connection, the one place
                // libmicrohttpd allows suspending it.
                MHD_suspend_connection(connection.pointer)
            }
            return action
        }
    }

    /// Called on the server thread when libmicrohttpd calls the access handler again after a resume.
    func resumed() -> ReplyStateMachine.ResumedAction {
        machine.withLock { $0.resumed() }
    }

    /// Resumes a suspended connection without a response so that `MHD_stop_daemon` can close it.
    func abandon() {
        guard case .connection(let connection, _) = target else { return }
        machine.withLock { machine in
            guard machine.abandon() else { return }
            // SAFETY: as in `respond`: the state was `.suspended`, so the connection is alive.
            MHD_resume_connection(connection.pointer)
        }
    }

    /// Called from `MHD_OPTION_NOTIFY_COMPLETED`: the connection pointer must not be used any more.
    func connectionClosed() {
        machine.withLock { $0.connectionClosed() }
        if case .connection(_, let suspendedRequests) = target {
            suspendedRequests.remove(self)
        }
    }
}
