/// A typed option that may be left out, declared as a stored property of a ``ParsableCommand``; its value
/// is `nil` when neither the command line nor its environment variable gives one.
///
/// ```swift
/// let description = Option("description", help: "Where the key is used.", valueName: "text")
/// // in run: parsed.description is a String?
/// ```
public struct Option<Value: Sendable>: Sendable {
    /// The option as the parser and help see it.
    public let spec: OptionSpec
    /// How its text becomes a value.
    let parser: ValueParser<Value>

    /// Declares an option that may be left out.
    ///
    /// - Parameters:
    ///   - name: The kebab-case long name, without dashes.
    ///   - short: An optional one-letter alias.
    ///   - help: One sentence for the help text.
    ///   - valueName: The placeholder in `<…>`; defaults to `name`.
    ///   - environment: The environment variable consulted when the option is not given.
    ///   - parser: How the text becomes a value; its allowed values are checked and listed in help errors.
    public init(
        _ name: String, short: Character? = nil, help: String, valueName: String? = nil, environment: String? = nil,
        parser: ValueParser<Value>
    ) {
        self.spec = OptionSpec(
            name, short: short, help: help, valueName: valueName, environment: environment,
            allowedValues: parser.allowedValues)
        self.parser = parser
    }
}

extension Option where Value == String {
    /// Declares an option that may be left out, whose value is its text.
    public init(_ name: String, short: Character? = nil, help: String, valueName: String? = nil, environment: String? = nil) {
        self.init(name, short: short, help: help, valueName: valueName, environment: environment, parser: .string)
    }
}

extension Option: ArgumentDeclaration {
    var key: String { "--" + spec.name }

    func declare(in spec: inout CommandSpec) {
        spec.options.append(self.spec)
    }

    func value(in arguments: ParsedArguments) throws(UsageError) -> any Sendable {
        guard let resolved = arguments.optionValues[spec.name], let text = resolved.values.last else {
            return Value?.none as any Sendable
        }
        let value: Value? = try convert(
            text, with: parser, naming: spec.unadornedSynopsis, from: resolved.source, in: arguments)
        return value as any Sendable
    }
}
