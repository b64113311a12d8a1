/// A typed option that may be given several times, declared as a stored property of a ``ParsableCommand``;
/// its value is every occurrence in command-line order, possibly none.
///
/// ```swift
/// let users = RepeatedOption("user", help: "A user to erase; repeat for several.", valueName: "id")
/// // in run: parsed.users is a [String]
/// ```
public struct RepeatedOption<Value: Sendable>: Sendable {
    /// The option as the parser and help see it.
    public let spec: OptionSpec
    /// How each text becomes a value.
    let parser: ValueParser<Value>

    /// Declares a repeatable option.
    ///
    /// - Parameters:
    ///   - name: The kebab-case long name, without dashes.
    ///   - short: An optional one-letter alias.
    ///   - help: One sentence for the help text.
    ///   - valueName: The placeholder in `<…>`; defaults to `name`.
    ///   - environment: The environment variable whose value is the only one when the option is not given.
    ///   - parser: How each text becomes a value.
    public init(
        _ name: String, short: Character? = nil, help: String, valueName: String? = nil, environment: String? = nil,
        parser: ValueParser<Value>
    ) {
        self.spec = OptionSpec(
            name, short: short, help: help, valueName: valueName, environment: environment,
            allowedValues: parser.allowedValues, isRepeatable: true)
        self.parser = parser
    }
}

extension RepeatedOption where Value == String {
    /// Declares a repeatable option whose values are their texts.
    public init(_ name: String, short: Character? = nil, help: String, valueName: String? = nil, environment: String? = nil) {
        self.init(name, short: short, help: help, valueName: valueName, environment: environment, parser: .string)
    }
}

extension RepeatedOption: ArgumentDeclaration {
    var key: String { "--" + spec.name }

    func declare(in spec: inout CommandSpec) {
        spec.options.append(self.spec)
    }

    func value(in arguments: ParsedArguments) throws(UsageError) -> any Sendable {
        guard let resolved = arguments.optionValues[spec.name] else { return [Value]() }
        var values: [Value] = []
        for text in resolved.values {
            values.append(try convert(
                text, with: parser, naming: spec.unadornedSynopsis, from: resolved.source, in: arguments))
        }
        return values
    }
}
