/// The result of parsing a command line: which command to run and the values it was given.
///
/// Values are looked up by the names in the command's spec, without dashes or angle brackets:
/// `option("database-url")`, `flag("verbose")`, `argument("key-id")`. Every value has already been
/// checked against the spec: required ones are present and allowed values are respected, so a
/// required option's lookup can be force-unwrapped.
///
/// - Warning: Asking for a name the command does not declare stops the program; it is a typo in the
///   calling code, not a user error, and every test that runs the command finds it.
public struct ParsedArguments: Sendable {
    /// Where a value came from; error messages name the environment variable so the user can find it.
    enum ValueSource: Sendable, Equatable {
        case commandLine
        case environment(String)
        case defaultValue
    }

    /// The values of one option and where they came from.
    struct ResolvedOption: Sendable {
        var values: [String]
        var source: ValueSource
    }

    /// The command to run, from the executable's name on: `["cardinal", "keys", "create"]`.
    public let commandPath: [String]
    /// The spec of the command to run, for name checks and error messages.
    let command: CommandSpec
    /// Options that got a value from somewhere, by name.
    let optionValues: [String: ResolvedOption]
    /// The names of flags that are on.
    let enabledFlags: Set<String>
    /// Positional arguments that were given, by name.
    let argumentValues: [String: String]

    /// The value of an option: from the command line, else the environment, else the default.
    ///
    /// - Parameter name: The option's long name without dashes, as in its ``OptionSpec``.
    /// - Returns: The value, or `nil` if none came from anywhere; for a repeatable option, the last value.
    public func option(_ name: String) -> String? {
        resolvedOption(name)?.values.last
    }

    /// Every value of a repeatable option in command-line order.
    ///
    /// If the option is not given on the command line, this is the environment variable's value or
    /// the default alone, when there is one.
    ///
    /// - Parameter name: The option's long name without dashes, as in its ``OptionSpec``.
    /// - Returns: The values, possibly none.
    public func options(_ name: String) -> [String] {
        resolvedOption(name)?.values ?? []
    }

    /// Whether a flag is on: given on the command line, or turned on by its environment variable.
    ///
    /// - Parameter name: The flag's long name without dashes, as in its ``FlagSpec``.
    /// - Returns: `true` if the flag is on.
    public func flag(_ name: String) -> Bool {
        precondition(command.flag(named: name) != nil, "'\(name)' is not a flag of '\(commandLine)'")
        return enabledFlags.contains(name)
    }

    /// The value of a positional argument.
    ///
    /// - Parameter name: The argument's name, as in its ``ArgumentSpec``.
    /// - Returns: The value, or `nil` if an optional argument was left out.
    public func argument(_ name: String) -> String? {
        precondition(
            command.arguments.contains { $0.name == name },
            "'\(name)' is not an argument of '\(commandLine)'")
        return argumentValues[name]
    }

    /// Makes a usage error about this command, for checks the command does itself.
    ///
    /// ```swift
    /// if from > to { throw parsed.usageError("'--from' must not be after '--to'.") }
    /// ```
    ///
    /// - Parameter message: What is wrong, without the `Error: ` prefix.
    /// - Returns: An error whose description shows this command's usage line.
    public func usageError(_ message: String) -> UsageError {
        UsageError(message: message, commandPath: commandPath, usage: HelpRenderer.usage(command, path: commandPath))
    }

    /// The spec of an option the command declares; asking for another is a programmer error.
    func declaredOption(_ name: String) -> OptionSpec {
        guard let option = command.option(named: name) else {
            preconditionFailure("'\(name)' is not an option of '\(commandLine)'")
        }
        return option
    }

    /// The option's values after checking that the command declares it.
    private func resolvedOption(_ name: String) -> ResolvedOption? {
        _ = declaredOption(name)
        return optionValues[name]
    }

    /// The command path as typed, for precondition messages.
    private var commandLine: String { commandPath.joined(separator: " ") }
}
