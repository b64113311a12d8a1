/// A typed positional argument that must be given, declared as a stored property of a ``ParsableCommand``.
///
/// ```swift
/// let keyID = Argument("key-id", help: "The id of the key.")
/// // in run: parsed.keyID is a String
/// ```
public struct Argument<Value: Sendable>: Sendable {
    /// The argument as the parser and help see it.
    public let spec: ArgumentSpec
    /// How its text becomes a value.
    let parser: ValueParser<Value>

    /// Declares a required positional argument; arguments are taken in the order they are declared.
    ///
    /// - Parameters:
    ///   - name: The kebab-case name, shown as `<name>`.
    ///   - help: One sentence for the help text.
    ///   - parser: How the text becomes a value.
    public init(_ name: String, help: String, parser: ValueParser<Value>) {
        self.spec = ArgumentSpec(name, help: help)
        self.parser = parser
    }
}

extension Argument where Value == String {
    /// Declares a required positional argument whose value is its text.
    public init(_ name: String, help: String) {
        self.init(name, help: help, parser: .string)
    }
}

extension Argument: ArgumentDeclaration {
    var key: String { spec.label }

    func declare(in spec: inout CommandSpec) {
        spec.arguments.append(self.spec)
    }

    func value(in arguments: ParsedArguments) throws(UsageError) -> any Sendable {
        // The parser refuses a command line that leaves a required argument out.
        guard let text = arguments.argumentValues[spec.name] else {
            preconditionFailure("the required argument '\(spec.label)' has no value")
        }
        return try convert(text, with: parser, naming: spec.label, from: .commandLine, in: arguments)
    }
}
