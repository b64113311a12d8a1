import CMicroHTTPD
import Synchronization

/// A reply that the server thread waits for with its connection suspended: it is given exactly once, from any
/// thread, and resumes the connection if the handler already returned. ``HTTPResponder`` (the response) and
/// ``HTTPAdmission`` (the verdict on a request head) are both one of these.
///
/// See `MHD_suspend_connection` and `MHD_resume_connection` in
/// <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dflow>.
final class SuspendableReply<Reply: Sendable>: SuspendedRequest {
    private let machine = Mutex(ReplyStateMachine<Reply>())
    private let connection: MHDConnection
    private let suspendedRequests: SuspendedRequests
    /// The instant after which the request is answered with the server's deadline response.
    let deadline: ContinuousClock.Instant
    /// The reply that answers a request whose deadline passed.
    private let expiredReply: @Sendable (HTTPResponse) -> Reply

    init(connection: MHDConnection, suspendedRequests: SuspendedRequests, deadline: ContinuousClock.Instant,
         expiredReply: @escaping @Sendable (HTTPResponse) -> Reply) {
        self.connection = connection
        self.suspendedRequests = suspendedRequests
        self.deadline = deadline
        self.expiredReply = expiredReply
    }

    /// Gives the reply; `false` when one was already given or the request is gone.
    @discardableResult
    func give(_ reply: Reply) -> Bool {
        machine.withLock { machine in
            switch machine.respond(reply) {
            case .store:
                return true
            case .resume:
                // SAFETY: the state was `.suspended`, so the connection is alive: libmicrohttpd frees a
                // suspended connection only after a resume, and only this call or `abandon` (both under this
                // lock) resumes it. Resuming under the lock keeps `HTTPServer.stop` from stopping the daemon
                // between our state change and the resume.
                MHD_resume_connection(connection.pointer)
                suspendedRequests.remove(self)
                return true
            case .ignore:
                return false
            }
        }
    }

    /// Called on the server thread once the handler returned; says what the access handler must do.
    func handlerReturned() -> ReplyStateMachine<Reply>.HandlerReturnedAction {
        machine.withLock { machine in
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
    func resumed() -> ReplyStateMachine<Reply>.ResumedAction {
        machine.withLock { $0.resumed() }
    }

    func abandon() {
        machine.withLock { machine in
            guard machine.abandon() else { return }
            // SAFETY: as in `give`: the state was `.suspended`, so the connection is alive.
            MHD_resume_connection(connection.pointer)
        }
    }

    func expire(with response: HTTPResponse) {
        give(expiredReply(response))
    }

    /// Called from `MHD_OPTION_NOTIFY_COMPLETED`: the connection pointer must not be used any more.
    func connectionClosed() {
        machine.withLock { $0.connectionClosed() }
        suspendedRequests.remove(self)
    }
}
