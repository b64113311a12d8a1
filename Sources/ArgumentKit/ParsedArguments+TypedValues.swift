/// Option values converted to numbers and durations, with usage errors for values that do not convert.
extension ParsedArguments {
    /// The value of an option as a whole number.
    ///
    /// - Parameter name: The option's long name without dashes.
    /// - Returns: The number, or `nil` if the option has no value.
    /// - Throws: ``UsageError`` naming the option (and its environment variable, if that is where the
    ///   value came from) when the value is not a whole number.
    public func integer(_ name: String) throws(UsageError) -> Int? {
        try converted(name, expectation: "expected a whole number") { Int($0) }
    }

    /// The value of an option as a duration: a whole number followed by `ms`, `s`, `m` or `h`,
    /// such as `250ms`, `30s`, `5m` or `1h`.
    ///
    /// - Parameter name: The option's long name without dashes.
    /// - Returns: The duration, or `nil` if the option has no value.
    /// - Throws: ``UsageError`` naming the option when the value is not such a duration.
    public func duration(_ name: String) throws(UsageError) -> Duration? {
        try converted(name, expectation: "expected a duration such as 250ms, 30s, 5m or 1h") {
            Self.parseDuration($0)
        }
    }

    /// Converts the option's last value, or explains why it cannot.
    private func converted<Value>(
        _ name: String,
        expectation: String,
        _ convert: (String) -> Value?
    ) throws(UsageError) -> Value? {
        let option = declaredOption(name)
        guard let resolved = optionValues[name], let text = resolved.values.last else { return nil }
        if let value = convert(text) { return value }
        throw usageError(
            UsageError.invalidValue(text, for: option.unadornedSynopsis, from: resolved.source, expectation: expectation))
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
