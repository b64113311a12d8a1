/// The verdict on a request from its head alone, given once, now or later from any thread: admit it (its body
/// is then read) or refuse it with a response (its body is never read).
///
/// Until the verdict comes the connection is suspended: it holds no thread and no body memory, so an
/// admission that asks a database for a key costs a waiting client nothing but its socket.
///
/// - Warning: Only the first call counts; later calls, and calls after the client went away, the request's
///   deadline passed or the server stopped, are ignored.
public final class HTTPAdmission: Sendable {
    /// What becomes of the request.
    public enum Verdict: Sendable {
        /// Read the body and call the handler; `note` reaches it as ``HTTPRequest/admissionNote``.
        case admit(note: (any Sendable)?)
        /// Answer `response` at once, without reading the body.
        case refuse(HTTPResponse)
    }

    let reply: SuspendableReply<Verdict>

    init(reply: SuspendableReply<Verdict>) {
        self.reply = reply
    }

    /// Lets the request go on to its body and handler.
    /// - Parameter note: What the handler should know of the admission (the app a key belongs to, say).
    public func admit(note: (any Sendable)? = nil) {
        reply.give(.admit(note: note))
    }

    /// Answers `response` without reading the body.
    public func refuse(_ response: HTTPResponse) {
        reply.give(.refuse(response))
    }
}
