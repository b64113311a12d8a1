/// Why ``Gzip/inflate(_:maxOutputBytes:)`` gave up.
public enum GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data inflates to more than `limit` bytes (a "zip bomb" or simply too large); inflating stopped
    /// as soon as the limit was passed.
    case outputTooLarge(limit: Int)
    /// The data is not a complete gzip or zlib stream; the text says what zlib found.
    case corrupt(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .outputTooLarge(let limit): "compressed data inflates to more than \(limit) bytes"
        case .corrupt(let reason): "compressed data is corrupt: \(reason)"
        }
    }
}
