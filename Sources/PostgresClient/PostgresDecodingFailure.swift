/// Why a text value could not become a Swift value, thrown by `PostgresDecodable.init(postgresText:)`.
public struct PostgresDecodingFailure: Error, CustomStringConvertible, Sendable {
    /// What is wrong with the text, for example `"abc" is not an integer`.
    public let reason: String

    /// Creates a failure with a reason that reads on its own.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String {
        reason
    }

    /// A failure quoting at most the first 40 characters of `text`, so long values keep log lines short.
    static func invalid(_ text: String, expected: String) -> PostgresDecodingFailure {
        let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
        return PostgresDecodingFailure("\"\(shown)\" is not \(expected)")
    }
}
