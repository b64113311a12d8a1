/// An HTTP response to queue on a connection.
///
/// libmicrohttpd adds `Content-Length`, `Date` and the connection headers itself; do not set them here.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. `200`.
    public var status: Int
    /// Header fields to send, e.g. `Content-Type` or `Retry-After`.
    public var headers: HTTPHeaders
    /// The body bytes (sent as given; not sent for `HEAD`).
    public var body: [UInt8]

    /// A response with the given status, headers and body.
    public init(status: Int, headers: HTTPHeaders = .init(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is already-encoded JSON, with `Content-Type: application/json`.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A response with a text body encoded as UTF-8.
    public static func text(
        _ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
    }
}
