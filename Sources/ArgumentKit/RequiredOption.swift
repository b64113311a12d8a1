/// A typed option that always has a value, declared as a stored property of a ``ParsableCommand``: the
/// command line gives it, else its environment variable, else its default; without a default, leaving it
/// out is a usage error.
///
/// ```swift
/// let app = RequiredOption("app", help: "The app the key belongs to.")
/// let format = RequiredOption("format", help: "Output format.", default: "table", parser: .oneOf(Format.self))
/// // in run: parsed.app is a String, parsed.format a Format
/// ```
public struct RequiredOption<Value: Sendable>: Sendable {
    /// The option as the parser and help see it.
    public let spec: OptionSpec
    /// How its text, or the default's, becomes a value.
    let parser: ValueParser<Value>

    /// Declares an option that always has a value.
    ///
    /// - Parameters:
    ///   - name: The kebab-case long name, without dashes.
    ///   - short: An optional one-letter alias.
    ///   - help: One sentence for the help text.
    ///   - valueName: The placeholder in `<…>`; defaults to `name`.
    ///   - default: The text used when none is given, shown in help; without one the option must be given.
    ///   - environment: The environment variable consulted when the option is not given.
    ///   - parser: How the text becomes a value.
    public init(
        _ name: String, short: Character? = nil, help: String, valueName: String? = nil, default: String? = nil,
        environment: String? = nil, parser: ValueParser<Value>
    ) {
        self.spec = OptionSpec(
            name, short: short, help: help, valueName: valueName, default: `default`, environment: environment,
            allowedValues: parser.allowedValues, isRequired: `default` == nil)
        self.parser = parser
        if let text = `default` {
            precondition((try? parser.convert(text)) != nil, "the default '\(text)' of '--\(name)' does not convert")
        }
    }
}

extension RequiredOption where Value == String {
    /// Declares an option that always has a value, whose value is its text.
    public init(
        _ name: String, short: Character? = nil, help: String, valueName: String? = nil, default: String? = nil,
        environment: String? = nil
    ) {
        self.init(
            name, short: short, help: help, valueName: valueName, default: `default`, environment: environment,
            parser: .string)
    }
}

extension RequiredOption: ArgumentDeclaration {
    var key: String { "--" + spec.name }

    func declare(in spec: inout CommandSpec) {
        spec.options.append(self.spec)
    }

    func value(in arguments: ParsedArguments) throws(UsageError) -> any Sendable {
        // The parser refuses a command line that leaves a required option without a value.
        guard let resolved = arguments.optionValues[spec.name], let text = resolved.values.last else {
            preconditionFailure("the required option '--\(spec.name)' has no value")
        }
        return try convert(text, with: parser, naming: spec.unadornedSynopsis, from: resolved.source, in: arguments)
    }
}
