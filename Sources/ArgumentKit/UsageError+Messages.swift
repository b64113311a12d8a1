/// The wording of every usage error, in one place, following swift-argument-parser's messages.
extension UsageError {
    /// `Unknown option '--verbos'. Did you mean '--verbose'?`
    static func unknownOption(_ spelled: String, suggestion: String?) -> String {
        guard let suggestion else { return "Unknown option '\(spelled)'" }
        return "Unknown option '\(spelled)'. Did you mean '\(suggestion)'?"
    }

    /// `Unknown subcommand 'craete'. Did you mean 'create'?`
    static func unknownSubcommand(_ word: String, suggestion: String?) -> String {
        guard let suggestion else { return "Unknown subcommand '\(word)'" }
        return "Unknown subcommand '\(word)'. Did you mean '\(suggestion)'?"
    }

    /// `Missing value for '--app <app>'`
    static func missingValue(_ spelled: String, valueName: String) -> String {
        "Missing value for '\(spelled) <\(valueName)>'"
    }

    /// `The option '--verbose' does not take any value, but 'yes' was specified.`
    static func unexpectedValue(_ spelled: String, value: String) -> String {
        "The option '\(spelled)' does not take any value, but '\(value)' was specified."
    }

    /// `Unexpected argument 'x'`, or `2 unexpected arguments: 'x', 'y'`.
    static func unexpectedArguments(_ words: [String]) -> String {
        if words.count == 1 { return "Unexpected argument '\(words[0])'" }
        return "\(words.count) unexpected arguments: " + words.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// `Missing expected argument '--app <app>'`, or `'<key-id>'` for a positional argument.
    static func missingExpected(_ synopsis: String) -> String {
        "Missing expected argument '\(synopsis)'"
    }

    /// `The value 'xml' is invalid for '--format <format>'. Please provide one of 'table', 'csv' or 'json'.`
    ///
    /// - Parameters:
    ///   - value: The rejected value.
    ///   - synopsis: How the option is named: `--format <format>`.
    ///   - source: Where the value came from; the environment variable is named so the user can find it.
    ///   - allowedValues: The accepted values, listed after the message when not empty.
    ///   - expectation: What a valid value looks like, appended after a colon when given.
    static func invalidValue(
        _ value: String,
        for synopsis: String,
        from source: ParsedArguments.ValueSource,
        allowedValues: [String] = [],
        expectation: String? = nil
    ) -> String {
        let subject = switch source {
        case .commandLine: "The value '\(value)'"
        case .environment(let variable): "The value '\(value)' of environment variable '\(variable)'"
        case .defaultValue: "The default value '\(value)'"
        }
        var message = "\(subject) is invalid for '\(synopsis)'"
        if let expectation { message += ": \(expectation)" }
        if !allowedValues.isEmpty { message += ". Please provide one of \(alternatives(allowedValues))." }
        return message
    }

    /// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
    private static func alternatives(_ values: [String]) -> String {
        let quoted = values.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.joined() }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}
