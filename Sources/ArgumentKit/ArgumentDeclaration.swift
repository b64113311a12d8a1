/// What every typed declaration of a ``ParsableCommand`` does: adds itself to the command's spec, and takes
/// its typed value from what the parser found.
protocol ArgumentDeclaration: Sendable {
    /// The key its value is stored under: `--name` for options and flags, `<name>` for arguments.
    var key: String { get }

    /// Adds the option, flag or argument to the command's spec.
    func declare(in spec: inout CommandSpec)

    /// The typed value, converted from the text the parser found (an `Optional` for options that may be absent).
    ///
    /// - Throws: ``UsageError`` when the text does not convert.
    func value(in arguments: ParsedArguments) throws(UsageError) -> any Sendable
}

extension ArgumentDeclaration {
    /// Converts one text, making a refusal a usage error that names the option or argument and the value's source.
    func convert<Value>(
        _ text: String,
        with parser: ValueParser<Value>,
        naming synopsis: String,
        from source: ParsedArguments.ValueSource,
        in arguments: ParsedArguments
    ) throws(UsageError) -> Value {
        do {
            return try parser.convert(text)
        } catch {
            throw arguments.usageError(
                UsageError.invalidValue(text, for: synopsis, from: source, expectation: error.reason))
        }
    }
}
