/// A value from a report function that does not have the shape the report expects; a schema drift between the
/// SQL functions and this module, never a user error.
public struct ReportDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being read.
    public var what: String
    /// The value as received.
    public var value: String
    /// What it should have been.
    public var expected: String

    /// Creates an error.
    public init(what: String, value: String, expected: String) {
        self.what = what
        self.value = value
        self.expected = expected
    }

    /// `cannot read <what>: "<value>" is not <expected>`.
    public var description: String {
        "cannot read \(what): \"\(value.prefix(80))\" is not \(expected); is the database migrated to this version?"
    }
}
