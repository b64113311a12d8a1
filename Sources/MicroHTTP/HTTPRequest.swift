/// A complete HTTP request: its head and its whole body.
public struct HTTPRequest: Sendable {
    /// The request method as sent, e.g. `"POST"`.
    public let method: String
    /// The path without the query string, percent-decoded by libmicrohttpd.
    public let path: String
    /// Query parameters, decoded; a parameter without `=` maps to `""`. Of repeated names the first wins.
    public let query: [String: String]
    /// The request header fields.
    public let headers: HTTPHeaders
    /// The request body, at most ``HTTPServerConfiguration/maxBodyBytes`` long.
    public let body: [UInt8]
    /// The client's numeric IP address, or `nil` when it could not be learned.
    public let remoteAddress: String?
    /// What the ``HTTPAdmissionHandler`` passed to ``HTTPAdmission/admit(note:)``, if anything.
    public let admissionNote: (any Sendable)?

    /// A request built by hand, for tests of code that handles requests.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: HTTPHeaders = .init(),
        body: [UInt8] = [], remoteAddress: String? = nil, admissionNote: (any Sendable)? = nil
    ) {
        self.admissionNote = admissionNote
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}
