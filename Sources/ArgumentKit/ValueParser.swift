/// How the text of an option or argument becomes a typed value, and what help says a valid one looks like.
///
/// ```swift
/// let port = Option("port", help: "Port to listen on.", parser: .integer)
/// let day = Option("day", help: "A day, YYYY-MM-DD.", valueName: "date",
///                  parser: ValueParser(expectation: "expected a date as YYYY-MM-DD") { CalendarDay($0) })
/// ```
///
/// The parser runs when the command line is parsed, before the command does anything, so a value that
/// does not convert is a usage error (exit 64) that names the option and, if the value came from there,
/// its environment variable.
public struct ValueParser<Value: Sendable>: Sendable {
    /// The only texts accepted, checked (and listed in the error) before the conversion; empty accepts any.
    public let allowedValues: [String]
    /// Converts a text, or says why it cannot.
    let convert: @Sendable (String) throws(InvalidArgumentValue) -> Value

    /// Creates a parser whose conversion explains each refusal itself.
    ///
    /// - Parameters:
    ///   - allowedValues: The only texts accepted; empty accepts any.
    ///   - convert: Returns the value, or throws ``InvalidArgumentValue`` with the reason.
    public init(
        allowedValues: [String] = [],
        _ convert: @escaping @Sendable (String) throws(InvalidArgumentValue) -> Value
    ) {
        self.allowedValues = allowedValues
        self.convert = convert
    }

    /// Creates a parser that refuses every text it cannot convert with the same explanation.
    ///
    /// - Parameters:
    ///   - expectation: What a valid text looks like, such as `expected a whole number`.
    ///   - convert: Returns the value, or `nil` for a text that is not one.
    public init(expectation: String, _ convert: @escaping @Sendable (String) -> Value?) {
        self.init { text throws(InvalidArgumentValue) in
            guard let value = convert(text) else { throw InvalidArgumentValue(expectation) }
            return value
        }
    }
}

extension ValueParser where Value == String {
    /// The text as it was given.
    public static var string: Self { Self { $0 } }
}

extension ValueParser where Value == Int {
    /// A whole number, such as `8080` or `-1`.
    public static var integer: Self { Self(expectation: "expected a whole number") { Int($0) } }
}

extension ValueParser where Value == Duration {
    /// A whole number followed by `ms`, `s`, `m` or `h`, such as `250ms`, `30s`, `5m` or `1h`.
    public static var duration: Self {
        Self(expectation: "expected a duration such as 250ms, 30s, 5m or 1h") { parseDuration($0) }
    }

    /// Parses `250ms`, `30s`, `5m` or `1h`; anything else, including a bare number, is `nil`, because
    /// a unit left out is as likely to mean milliseconds as seconds.
    static func parseDuration(_ text: String) -> Duration? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let count = Int(digits) else { return nil }
        let secondsPerUnit: Int
        switch text.dropFirst(digits.count) {
        case "ms": return .milliseconds(count)
        case "s": secondsPerUnit = 1
        case "m": secondsPerUnit = 60
        case "h": secondsPerUnit = 3600
        default: return nil
        }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: secondsPerUnit)
        return overflow ? nil : .seconds(seconds)
    }
}

extension ValueParser where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
    /// One of the cases of an enumeration, by raw value; help and errors list them all.
    ///
    /// - Parameter type: The enumeration.
    public static func oneOf(_ type: Value.Type) -> Self {
        Self(allowedValues: Value.allCases.map(\.rawValue)) { text throws(InvalidArgumentValue) in
            // The scanner has already refused anything outside `allowedValues`.
            guard let value = Value(rawValue: text) else { throw InvalidArgumentValue("not a case of \(Value.self)") }
            return value
        }
    }
}

/// Why a text is not a valid value: the part of the usage error after the option's name.
public struct InvalidArgumentValue: Error, Sendable, Equatable {
    /// What is wrong or what is expected, such as `expected a whole number`.
    public var reason: String

    /// Creates a refusal.
    ///
    /// - Parameter reason: What is wrong or what is expected, without the value or the option's name.
    public init(_ reason: String) {
        self.reason = reason
    }
}

extension ValueParser where Value == Int {
    /// A whole number in `range`, such as a thread count from 0 to 1024.
    ///
    /// - Parameter range: The numbers accepted; the error names its bounds.
    public static func integer(in range: ClosedRange<Int>) -> Self {
        Self { text throws(InvalidArgumentValue) in
            guard let value = Int(text), range.contains(value) else {
                throw InvalidArgumentValue("expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
    }

    /// A whole number of at least `minimum`, such as a count that must be positive.
    ///
    /// - Parameter minimum: The least number accepted.
    public static func integer(atLeast minimum: Int) -> Self {
        Self { text throws(InvalidArgumentValue) in
            guard let value = Int(text), value >= minimum else {
                throw InvalidArgumentValue("expected a whole number of \(minimum) or more")
            }
            return value
        }
    }
}
