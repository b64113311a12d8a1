import Foundation

/// A response as received.
struct HTTPReply: Sendable {
    /// The status code.
    var status: Int
    /// The header fields in order.
    var headers: [(String, String)]
    /// The body bytes.
    var body: [UInt8]

    /// The value of the first header field called `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
    }
}
