import Synchronization

/// Completes one request, exactly once, from any thread, possibly long after the handler returned.
///
/// When the handler returns without calling ``respond(_:)`` the connection is suspended
/// (`MHD_suspend_connection`), so no server thread waits for the answer; ``respond(_:)`` then resumes it
/// (`MHD_resume_connection`). See <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dflow>.
///
/// - Warning: Only the first call counts. Later calls, and calls after the client went away, the request's
///   deadline passed or the server stopped, are ignored, so a late answer (a timed-out batch, say) is harmless.
public final class HTTPResponder: Sendable {
    private enum Target: Sendable {
        case connection(SuspendableReply<HTTPResponse>)
        case sink(@Sendable (HTTPResponse) -> Void)
    }

    private let target: Target
    /// Whether a capturing responder was answered already.
    private let sinkAnswered = Atomic(false)

    init(reply: SuspendableReply<HTTPResponse>) {
        target = .connection(reply)
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
            if !sinkAnswered.exchange(true, ordering: .acquiringAndReleasing) { sink(response) }
        case .connection(let reply):
            reply.give(response)
        }
    }

    /// The reply behind a responder that the server made.
    var reply: SuspendableReply<HTTPResponse> {
        guard case .connection(let reply) = target else {
            preconditionFailure("a capturing responder is never given to the server")
        }
        return reply
    }
}
