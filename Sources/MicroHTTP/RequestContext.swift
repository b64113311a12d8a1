/// What one request has gathered so far; lives in libmicrohttpd's `*con_cls`.
///
/// OWNERSHIP: the access handler stores it with `Unmanaged.passRetained` on the request's first call and
/// `MHD_OPTION_NOTIFY_COMPLETED` releases it (`takeRetainedValue`). libmicrohttpd calls both for one
/// connection on one thread at a time, so this class needs no lock.
final class RequestContext {
    enum Phase {
        /// Waiting, suspended, for the verdict on the head; no body is read meanwhile.
        case admitting(HTTPAdmission)
        /// Collecting the body.
        case receiving
        /// The body outgrew the limit; the rest is read and dropped, then `413` is sent.
        case tooLarge(discarded: Int)
        /// The handler was called; the responder finishes the request.
        case dispatched(HTTPResponder)
    }

    enum ReceiveResult {
        case accepted
        /// The client kept sending far past the limit: close the connection instead of reading on.
        case abort
    }

    let method: String
    let path: String
    let headers: HTTPHeaders
    let query: [String: String]
    let remoteAddress: String?
    /// When the request must be answered by (`HTTPServerConfiguration.requestDeadline` after its start).
    let deadline: ContinuousClock.Instant
    /// What the admission handler passed on to the handler.
    var admissionNote: (any Sendable)?
    private let maxBodyBytes: Int
    /// Reserved from `Content-Length` only once the request is admitted (``reserveBody()``): an unknown client
    /// that announces a large body must not get that much memory for it; an admitted one gets it at once, so
    /// the body is not copied as it grows.
    private(set) var body: [UInt8] = []
    var phase: Phase = .receiving

    init(
        method: String, path: String, headers: HTTPHeaders, query: [String: String], remoteAddress: String?,
        deadline: ContinuousClock.Instant, maxBodyBytes: Int
    ) {
        self.deadline = deadline
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.remoteAddress = remoteAddress
        self.maxBodyBytes = maxBodyBytes
    }

    /// Reserves room for the body `Content-Length` announces (at most the limit).
    func reserveBody() {
        if let declared = headers["Content-Length"].flatMap({ Int($0) }), declared > 0 {
            body.reserveCapacity(min(declared, maxBodyBytes))
        }
    }

    /// Takes one piece of the body.
    ///
    /// libmicrohttpd 0.9.75 cannot queue a response while body data is being delivered, so a chunked body
    /// that outgrows the limit is read to its end and dropped before `413` goes out; a client that sends
    /// more than another `maxBodyBytes` after that is cut off.
    func receive(_ bytes: UnsafeRawBufferPointer) -> ReceiveResult {
        switch phase {
        case .receiving:
            if body.count + bytes.count <= maxBodyBytes {
                body.append(contentsOf: bytes)
            } else {
                phase = .tooLarge(discarded: body.count + bytes.count)
                body = []
            }
            return .accepted
        case .tooLarge(let discarded):
            let total = discarded + bytes.count
            phase = .tooLarge(discarded: total)
            return total - maxBodyBytes > maxBodyBytes ? .abort : .accepted
        case .dispatched, .admitting:
            preconditionFailure("libmicrohttpd delivered body data while no body was expected (phase \(phase))")
        }
    }

    /// The finished request; the context lets go of the body so only the handler keeps it alive.
    func takeRequest() -> HTTPRequest {
        defer { body = [] }
        return HTTPRequest(
            method: method, path: path, query: query, headers: headers, body: body, remoteAddress: remoteAddress,
            admissionNote: admissionNote)
    }
}
