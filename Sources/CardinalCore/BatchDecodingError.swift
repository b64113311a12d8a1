/// Why a request body is not a batch of events at all (HTTP 400), as opposed to a batch with bad events.
public enum BatchDecodingError: Error, Sendable, Equatable {
    /// The body is empty, not JSON, or not shaped as a batch; the text says what is wrong and how to fix it.
    case notABatch(String)
    /// The body holds more events than one request may carry (HTTP 413); decoding stopped there.
    case tooManyEvents(limit: Int)

    /// The human explanation, fit for the body of a 400 response.
    public var message: String {
        switch self {
        case .notABatch(let message): message
        case .tooManyEvents(let limit):
            "the body holds more than \(limit) events; send at most \(limit) per request"
        }
    }
}

extension BatchDecodingError: CustomStringConvertible {
    /// Same as ``message``.
    public var description: String {
        message
    }
}
