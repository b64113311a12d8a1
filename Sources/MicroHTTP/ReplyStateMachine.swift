/// The life of one deferred reply, from the handler's call to the reply being used: a response to queue
/// (``HTTPResponder``) or the verdict on a request head (``HTTPAdmission``).
///
/// Two threads race here: the server thread that called the handler and, for a deferred reply, the thread
/// that gives the reply. The machine is pure; ``SuspendableReply`` runs it behind a `Mutex` and carries out
/// the action each transition returns while still holding the lock, so a transition and its libmicrohttpd
/// call are one atomic step.
struct ReplyStateMachine<Reply: Sendable>: Sendable {
    enum State: Sendable {
        /// The handler is running on the server thread.
        case handling
        /// `respond` came before the handler returned; the server thread queues it on return.
        case answeredWhileHandling(Reply)
        /// The handler returned without a response; the connection is suspended.
        case suspended
        /// `respond` came while suspended; the connection is resumed and the response waits to be queued.
        case resuming(Reply)
        /// The server is stopping: the connection was resumed without a response and will be closed.
        case abandoned
        /// The response is queued or the connection is gone; nothing more happens.
        case finished
    }

    private(set) var state: State = .handling

    enum RespondAction: Equatable {
        /// Keep the response; the server thread picks it up.
        case store
        /// Resume the suspended connection.
        case resume
        /// A second response, or the connection is gone: drop it.
        case ignore
    }

    mutating func respond(_ response: Reply) -> RespondAction {
        switch state {
        case .handling:
            state = .answeredWhileHandling(response)
            return .store
        case .suspended:
            state = .resuming(response)
            return .resume
        case .answeredWhileHandling, .resuming, .abandoned, .finished:
            return .ignore
        }
    }

    enum HandlerReturnedAction {
        case queue(Reply)
        case suspend
        /// The server is stopping, so suspending would leave a connection libmicrohttpd cannot stop.
        case close
    }

    /// The handler returned; `mayStaySuspended` is asked only when no response has arrived yet.
    mutating func handlerReturned(mayStaySuspended: () -> Bool) -> HandlerReturnedAction {
        switch state {
        case .answeredWhileHandling(let response):
            state = .finished
            return .queue(response)
        case .handling:
            if mayStaySuspended() {
                state = .suspended
                return .suspend
            }
            state = .finished
            return .close
        case .suspended, .resuming, .abandoned, .finished:
            preconditionFailure("the handler returned twice for one request (state \(state))")
        }
    }

    enum ResumedAction {
        case queue(Reply)
        case close
    }

    /// libmicrohttpd calls the access handler again after a resume.
    mutating func resumed() -> ResumedAction {
        switch state {
        case .resuming(let response):
            state = .finished
            return .queue(response)
        case .abandoned, .finished:
            state = .finished
            return .close
        case .handling, .answeredWhileHandling, .suspended:
            preconditionFailure("libmicrohttpd resumed a request that was not resumed (state \(state))")
        }
    }

    /// The server is stopping; returns whether the connection must be resumed so it can be closed.
    mutating func abandon() -> Bool {
        guard case .suspended = state else { return false }
        state = .abandoned
        return true
    }

    /// libmicrohttpd reported the request complete (answered, failed or closed).
    mutating func connectionClosed() {
        state = .finished
    }
}
