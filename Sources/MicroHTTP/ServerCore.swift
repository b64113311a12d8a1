import CMicroHTTPD
import Synchronization

/// Everything the libmicrohttpd callbacks need, reached through their `cls` pointer.
///
/// OWNERSHIP: ``HTTPServer`` owns it and outlives the daemon (it stops the daemon before letting go), so the
/// callbacks borrow it with `Unmanaged.passUnretained`.
final class ServerCore: Sendable {
    let maxBodyBytes: Int
    private let bodyTooLargeResponse: HTTPResponse
    let headHandler: HTTPHeadHandler?
    let admissionHandler: HTTPAdmissionHandler?
    let handler: HTTPHandler
    /// `HTTPServerConfiguration.requestDeadline`; zero: none.
    let requestDeadline: Duration
    /// `HTTPServerConfiguration.connectionTimeout` in libmicrohttpd's whole seconds.
    let connectionTimeoutSeconds: UInt32
    let watchdog: DeadlineWatchdog
    let logger: (@Sendable (String) -> Void)?
    let suspendedRequests = SuspendedRequests()
    let connections = ConnectionTable()
    /// Requests begun and not yet completed: being received, waiting for their handler, or being sent.
    let openRequests = Atomic<Int>(0)
    private let lastLogMessage = Mutex<String?>(nil)

    init(configuration: HTTPServerConfiguration, headHandler: HTTPHeadHandler?,
         admissionHandler: HTTPAdmissionHandler?, handler: @escaping HTTPHandler) {
        maxBodyBytes = configuration.maxBodyBytes
        bodyTooLargeResponse = configuration.bodyTooLargeResponse
        logger = configuration.logger
        requestDeadline = configuration.requestDeadline
        connectionTimeoutSeconds = MHDDaemon.timeoutSeconds(configuration.connectionTimeout)
        self.headHandler = headHandler
        self.admissionHandler = admissionHandler
        self.handler = handler
        watchdog = DeadlineWatchdog(suspendedRequests: suspendedRequests, response: configuration.deadlineResponse)
    }

    /// The body of `MHD_AccessHandlerCallback`: first call with the head, then once per piece of body, then
    /// once with `*uploadDataSize == 0` when the request is complete, and once more after each resume.
    func handleAccess(
        connection: OpaquePointer, url: String, method: String,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>,
        requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let slot = requestSlot.pointee else {
            return beginRequest(connection: connection, url: url, method: method, requestSlot: requestSlot)
        }
        // SAFETY: the slot holds the retained context stored by `beginRequest`; it is released only in
        // `requestCompleted`, after the last call for this request.
        let context = Unmanaged<RequestContext>.fromOpaque(slot).takeUnretainedValue()
        let size = uploadDataSize.pointee
        if size > 0 {
            guard keepsDeadline(context, connection: connection) else { return .NO }
            // SAFETY: libmicrohttpd lends `size` bytes at `uploadData` for the duration of this call.
            let result = context.receive(UnsafeRawBufferPointer(start: uploadData, count: size))
            uploadDataSize.pointee = 0
            return result == .accepted ? .YES : .NO
        }
        switch context.phase {
        case .admitting(let admission):
            switch admission.reply.resumed() {
            case .queue(let verdict): return carryOut(verdict, for: context, on: connection)
            case .close: return .NO
            }
        case .receiving:
            return dispatch(context, connection: connection)
        case .tooLarge:
            return queue(bodyTooLargeResponse, on: connection)
        case .dispatched(let responder):
            switch responder.reply.resumed() {
            case .queue(let response): return queue(response, on: connection)
            case .close: return .NO
            }
        }
    }

    private func beginRequest(
        connection: OpaquePointer, url: String, method: String,
        requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let headers = MHDValues.headers(of: connection)
        if let early = headHandler?(method, url, headers) {
            return queue(early, on: connection)
        }
        if let declaredLength = headers["Content-Length"].flatMap({ Int($0) }), declaredLength > maxBodyBytes {
            return queue(bodyTooLargeResponse, on: connection)
        }
        let start = connections.readySince(connection) ?? .now
        let context = RequestContext(
            method: method, path: url, headers: headers, query: MHDValues.query(of: connection),
            remoteAddress: connections.address(of: connection),
            deadline: requestDeadline > .zero ? start + requestDeadline : .now + .seconds(86_400 * 365),
            maxBodyBytes: maxBodyBytes)
        requestSlot.pointee = Unmanaged.passRetained(context).toOpaque()
        openRequests.add(1, ordering: .relaxed)
        guard let admissionHandler else {
            context.reserveBody()
            return .YES
        }
        let admission = HTTPAdmission(reply: SuspendableReply(
            connection: MHDConnection(pointer: connection), suspendedRequests: suspendedRequests,
            deadline: context.deadline, expiredReply: { .refuse($0) }))
        context.phase = .admitting(admission)
        admissionHandler(method, url, headers, admission)
        switch admission.reply.handlerReturned() {
        case .queue(let verdict): return carryOut(verdict, for: context, on: connection)
        case .suspend: return .YES
        case .close: return .NO
        }
    }

    /// Reads the body of an admitted request, or answers a refused one without reading it.
    private func carryOut(
        _ verdict: HTTPAdmission.Verdict, for context: RequestContext, on connection: OpaquePointer
    ) -> MHD_Result {
        switch verdict {
        case .admit(let note):
            context.admissionNote = note
            context.phase = .receiving
            context.reserveBody()
            return .YES
        case .refuse(let response):
            return queue(response, on: connection)
        }
    }

    /// Whether a request still sending its body is within its deadline. While it is, libmicrohttpd's idle
    /// timeout for the connection is cut to the time left, so that a body trickled slower than that ends
    /// at the deadline rather than at the next byte.
    private func keepsDeadline(_ context: RequestContext, connection: OpaquePointer) -> Bool {
        guard requestDeadline > .zero else { return true }
        let left = context.deadline - .now
        guard left > .zero else {
            log("a request was still sending its body at its deadline; closing the connection")
            return false
        }
        let seconds = MHDDaemon.timeoutSeconds(left)
        // SAFETY: called from the access handler of this connection, where libmicrohttpd allows it.
        _ = cardinal_set_connection_timeout(
            connection, connectionTimeoutSeconds == 0 ? seconds : min(seconds, connectionTimeoutSeconds))
        return true
    }

    private func dispatch(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        let responder = HTTPResponder(reply: SuspendableReply(
            connection: MHDConnection(pointer: connection), suspendedRequests: suspendedRequests,
            deadline: context.deadline, expiredReply: { $0 }))
        context.phase = .dispatched(responder)
        handler(context.takeRequest(), responder)
        switch responder.reply.handlerReturned() {
        case .queue(let response): return queue(response, on: connection)
        case .suspend: return .YES
        case .close: return .NO
        }
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: the request is over (answered, failed, timed out or shut down).
    func requestCompleted(connection: OpaquePointer?, requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        if let connection {
            connections.requestFinished(on: connection)
        }
        guard let slot = requestSlot.pointee else { return }
        requestSlot.pointee = nil
        // SAFETY: balances the `passRetained` in `beginRequest`; the slot is cleared so it cannot happen twice.
        let context = Unmanaged<RequestContext>.fromOpaque(slot).takeRetainedValue()
        openRequests.subtract(1, ordering: .relaxed)
        switch context.phase {
        case .dispatched(let responder): responder.reply.connectionClosed()
        case .admitting(let admission): admission.reply.connectionClosed()
        case .receiving, .tooLarge: break
        }
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        guard let mhdResponse = MHDResponse(response, log: log) else { return .NO }
        return mhdResponse.queue(on: connection, status: response.status, log: log)
    }

    /// One message from libmicrohttpd or from this adapter.
    func log(_ message: String) {
        lastLogMessage.withLock { $0 = message }
        logger?(message)
    }

    /// The last message logged, to explain a failed start.
    var lastMessage: String? {
        lastLogMessage.withLock { $0 }
    }
}
