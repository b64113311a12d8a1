/// The checks that need the whole command line: extra words, values from the environment and
/// defaults, required options and arguments.
extension ArgumentScanner {
    /// The words `true`, `1`, `yes` and `on` (any letter case) turn a flag on from the environment.
    private static let trueWords: Set<String> = ["1", "true", "yes", "on"]
    /// The words `false`, `0`, `no` and `off` (any letter case) turn a flag off from the environment.
    private static let falseWords: Set<String> = ["0", "false", "no", "off"]

    /// Combines what was scanned with the environment and the defaults.
    ///
    /// Problems are reported in this order: extra positional words, then options and flags in
    /// declaration order, then missing positional arguments.
    ///
    /// - Parameter environment: The process environment; empty values count as unset.
    /// - Returns: The values for the command reached.
    /// - Throws: ``UsageError`` for the first problem found.
    func resolve(environment: [String: String]) throws(UsageError) -> ParsedArguments {
        if positionals.count > command.arguments.count {
            throw error(UsageError.unexpectedArguments(Array(positionals.dropFirst(command.arguments.count))))
        }
        var optionValues: [String: ParsedArguments.ResolvedOption] = [:]
        for option in command.options {
            if let resolved = try resolve(option, environment: environment) {
                optionValues[option.name] = resolved
            } else if option.isRequired {
                throw error(UsageError.missingExpected(option.unadornedSynopsis))
            }
        }
        var enabledFlags = givenFlags
        for flag in command.flags where !givenFlags.contains(flag.name) {
            if try isEnabledByEnvironment(flag, environment: environment) {
                enabledFlags.insert(flag.name)
            }
        }
        var argumentValues: [String: String] = [:]
        for (index, argument) in command.arguments.enumerated() {
            if index < positionals.count {
                argumentValues[argument.name] = positionals[index]
            } else if !argument.isOptional {
                throw error(UsageError.missingExpected(argument.label))
            }
        }
        return ParsedArguments(
            commandPath: path,
            command: command,
            optionValues: optionValues,
            enabledFlags: enabledFlags,
            argumentValues: argumentValues)
    }

    /// An option's values by precedence: command line, then environment, then default.
    private func resolve(
        _ option: OptionSpec,
        environment: [String: String]
    ) throws(UsageError) -> ParsedArguments.ResolvedOption? {
        if let values = givenOptions[option.name] {
            return .init(values: values, source: .commandLine)
        }
        if let variable = option.environmentVariable, let value = environment[variable], !value.isEmpty {
            guard option.allowedValues.isEmpty || option.allowedValues.contains(value) else {
                throw error(UsageError.invalidValue(
                    value, for: option.unadornedSynopsis, from: .environment(variable),
                    allowedValues: option.allowedValues))
            }
            return .init(values: [value], source: .environment(variable))
        }
        return option.defaultValue.map { .init(values: [$0], source: .defaultValue) }
    }

    /// Whether the flag's environment variable, if it declares one, turns it on.
    private func isEnabledByEnvironment(_ flag: FlagSpec, environment: [String: String]) throws(UsageError) -> Bool {
        guard let variable = flag.environmentVariable, let value = environment[variable], !value.isEmpty else {
            return false
        }
        let word = value.lowercased()
        if Self.trueWords.contains(word) { return true }
        if Self.falseWords.contains(word) { return false }
        throw error(UsageError.invalidValue(
            value, for: "--\(flag.name)", from: .environment(variable), allowedValues: ["true", "false"]))
    }
}
