import CMicroHTTPD
import Synchronization

/// Everything the libmicrohttpd callbacks need, reached through their `cls` pointer.
///
/// OWNERSHIP: ``HTTPServer`` owns it and outlives the daemon (it stops the daemon before letting go), so the
/// callbacks borrow it with `Unmanaged.passUnretained`.
final class ServerCore: Sendable {
    let maxBodyBytes: Int
    let headHandler: HTTPHeadHandler?
    let handler: HTTPHandler
    let logger: (@Sendable (String) -> Void)?
    let suspendedRequests = SuspendedRequests()
    let connections = ConnectionTable()
    /// Requests begun and not yet completed: being received, waiting for their handler, or being sent.
    let openRequests = Atomic<Int>(0)
    private let lastLogMessage = Mutex<String?>(nil)

    init(configuration: HTTPServerConfiguration, headHandler: HTTPHeadHandler?, handler: @escaping HTTPHandler) {
        maxBodyBytes = configuration.maxBodyBytes
        logger = configuration.logger
        self.headHandler = headHandler
        self.handler = handler
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
            // SAFETY: libmicrohttpd lends `size` bytes at `uploadData` for the duration of this call.
            let result = context.receive(UnsafeRawBufferPointer(start: uploadData, count: size))
            uploadDataSize.pointee = 0
            return result == .accepted ? .YES : .NO
        }
        switch context.phase {
        case .receiving:
            return dispatch(context, connection: connection)
        case .tooLarge:
            return queue(tooLargeResponse(), on: connection)
        case .dispatched(let responder):
            switch responder.resumed() {
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
        let declaredLength = headers["Content-Length"].flatMap { Int($0) }
        if let declaredLength, declaredLength > maxBodyBytes {
            return queue(tooLargeResponse(), on: connection)
        }
        let context = RequestContext(
            method: method, path: url, headers: headers, query: MHDValues.query(of: connection),
            remoteAddress: connections.address(of: connection), maxBodyBytes: maxBodyBytes,
            expectedBodyBytes: declaredLength)
        requestSlot.pointee = Unmanaged.passRetained(context).toOpaque()
        openRequests.add(1, ordering: .relaxed)
        return .YES
    }

    private func dispatch(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        let responder = HTTPResponder(
            connection: MHDConnection(pointer: connection), suspendedRequests: suspendedRequests)
        context.phase = .dispatched(responder)
        handler(context.takeRequest(), responder)
        switch responder.handlerReturned() {
        case .queue(let response): return queue(response, on: connection)
        case .suspend: return .YES
        case .close: return .NO
        }
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: the request is over (answered, failed, timed out or shut down).
    func requestCompleted(requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let slot = requestSlot.pointee else { return }
        requestSlot.pointee = nil
        // SAFETY: balances the `passRetained` in `beginRequest`; the slot is cleared so it cannot happen twice.
        let context = Unmanaged<RequestContext>.fromOpaque(slot).takeRetainedValue()
        openRequests.subtract(1, ordering: .relaxed)
        if case .dispatched(let responder) = context.phase {
            responder.connectionClosed()
        }
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        guard let mhdResponse = MHDResponse(response, log: log) else { return .NO }
        return mhdResponse.queue(on: connection, status: response.status, log: log)
    }

    private func tooLargeResponse() -> HTTPResponse {
        .text(413, "request body larger than \(maxBodyBytes) bytes\n")
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
