/// The typed values a ``ParsableCommand`` was given, read by key path into its declarations:
/// `parsed.app` is the value of the `app` property's option, typed by the declaration (`String` for a
/// ``RequiredOption``, `String?` for an ``Option``, `[String]` for a ``RepeatedOption``, `Bool` for a
/// ``Flag``).
///
/// Every value was converted when the command line was parsed, so reading one never fails.
@dynamicMemberLookup
public struct ParsedCommand<Command: ParsableCommand>: Sendable {
    /// What the parser found, for the command path and usage errors.
    public let arguments: ParsedArguments
    /// The declarations, to find the key of a key path.
    private let declarations = Command()
    /// The converted values by declaration key (`--name`, `<name>`).
    private let values: [String: any Sendable]

    /// Converts every declared value.
    ///
    /// - Throws: ``UsageError`` for the first value, in declaration order, that does not convert.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.arguments = arguments
        var values: [String: any Sendable] = [:]
        for declaration in Command.declarations {
            values[declaration.key] = try declaration.value(in: arguments)
        }
        self.values = values
    }

    /// The value of an option that may be absent.
    public subscript<Value>(dynamicMember path: KeyPath<Command, Option<Value>>) -> Value? {
        value(of: declarations[keyPath: path])
    }

    /// The value of an option that always has one.
    public subscript<Value>(dynamicMember path: KeyPath<Command, RequiredOption<Value>>) -> Value {
        value(of: declarations[keyPath: path])
    }

    /// Every value of a repeatable option, in command-line order.
    public subscript<Value>(dynamicMember path: KeyPath<Command, RepeatedOption<Value>>) -> [Value] {
        value(of: declarations[keyPath: path])
    }

    /// Whether a flag is on.
    public subscript(dynamicMember path: KeyPath<Command, Flag>) -> Bool {
        value(of: declarations[keyPath: path])
    }

    /// The value of a positional argument.
    public subscript<Value>(dynamicMember path: KeyPath<Command, Argument<Value>>) -> Value {
        value(of: declarations[keyPath: path])
    }

    /// The command path, from the executable's name on: `["cardinal", "keys", "create"]`.
    public var commandPath: [String] { arguments.commandPath }

    /// Makes a usage error about this command, for checks the command does itself.
    ///
    /// - Parameter message: What is wrong, without the `Error: ` prefix.
    /// - Returns: An error whose description shows this command's usage line.
    public func usageError(_ message: String) -> UsageError {
        arguments.usageError(message)
    }

    /// The value stored for a declaration, as the type its declaration gives it.
    private func value<Value>(of declaration: some ArgumentDeclaration, as _: Value.Type = Value.self) -> Value {
        guard let stored = values[declaration.key] else {
            preconditionFailure("""
                '\(declaration.key)' of '\(Command.name)' is not a stored property: declare options, flags and \
                arguments with 'let' so the parser sees them
                """)
        }
        // SAFETY of the cast: the declaration made this value, of the type its key path's subscript names.
        return stored as! Value
    }
}
