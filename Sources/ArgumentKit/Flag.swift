/// A typed flag, declared as a stored property of a ``ParsableCommand``; its value is whether it is on.
///
/// ```swift
/// let dryRun = Flag("dry-run", help: "Change nothing.")
/// // in run: parsed.dryRun is a Bool
/// ```
public struct Flag: Sendable {
    /// The flag as the parser and help see it.
    public let spec: FlagSpec

    /// Declares a flag.
    ///
    /// - Parameters:
    ///   - name: The kebab-case long name, without dashes.
    ///   - short: An optional one-letter alias.
    ///   - help: One sentence for the help text.
    ///   - environment: The environment variable that may turn the flag on or off when it is not given.
    public init(_ name: String, short: Character? = nil, help: String, environment: String? = nil) {
        self.spec = FlagSpec(name, short: short, help: help, environment: environment)
    }
}

extension Flag: ArgumentDeclaration {
    var key: String { "--" + spec.name }

    func declare(in spec: inout CommandSpec) {
        spec.flags.append(self.spec)
    }

    func value(in arguments: ParsedArguments) throws(UsageError) -> any Sendable {
        arguments.enabledFlags.contains(spec.name)
    }
}
