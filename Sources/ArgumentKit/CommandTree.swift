/// An executable's commands: groups of subcommands down to ``ParsableCommand`` leaves, from which both the
/// parser's ``CommandSpec`` tree and the code to run come, so the two cannot drift apart.
///
/// ```swift
/// let tree = CommandTree.group("cardinal", abstract: "…", version: "0.1.0", subcommands: [
///     .group("keys", abstract: "Manage ingest keys.", subcommands: [.command(CreateKey.self)]),
/// ])
/// switch tree.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
/// case .run(let invocation): try invocation.run()
/// …
/// }
/// ```
public struct CommandTree: Sendable {
    /// The command and everything below it, as the parser and help see them.
    public let spec: CommandSpec
    /// The subcommands, in the order of `spec.subcommands`.
    private let children: [CommandTree]
    /// For a leaf: converts what the parser found into the typed values and binds them to the command's `run`.
    private let bind: (@Sendable (ParsedArguments) throws(UsageError) -> Invocation)?

    /// A command that groups subcommands (the root is one).
    ///
    /// - Parameters:
    ///   - name: The word that selects it (the executable's name for the root).
    ///   - abstract: One sentence saying what the commands below do.
    ///   - discussion: Optional longer help text.
    ///   - version: The executable's version, for the root only; it turns on `--version`.
    ///   - subcommands: The commands below, in the order help lists them.
    public static func group(
        _ name: String, abstract: String, discussion: String? = nil, version: String? = nil,
        subcommands: [CommandTree]
    ) -> CommandTree {
        CommandTree(
            spec: CommandSpec(
                name: name, abstract: abstract, discussion: discussion, subcommands: subcommands.map(\.spec),
                version: version),
            children: subcommands, bind: nil)
    }

    /// A command that runs.
    ///
    /// - Parameter command: The command's type; its declarations make its spec.
    public static func command<Command: ParsableCommand>(_ command: Command.Type) -> CommandTree {
        CommandTree(spec: Command.spec, children: [], bind: { arguments throws(UsageError) in
            let parsed = try ParsedCommand<Command>(arguments)
            return Invocation(commandPath: arguments.commandPath) { try Command.run(parsed) }
        })
    }

    /// An executable that is a single command with no subcommands, such as a daemon: its options are the
    /// executable's, and `--version` prints `<name> <version>`.
    ///
    /// - Parameters:
    ///   - command: The command's type; its name is the executable's.
    ///   - version: The executable's version.
    public static func root<Command: ParsableCommand>(_ command: Command.Type, version: String) -> CommandTree {
        let leaf = CommandTree.command(command)
        var spec = leaf.spec
        spec.version = version
        return CommandTree(spec: spec, children: [], bind: leaf.bind)
    }

    /// Decides what to do with a command line, as ``CommandLineParser/parse(_:root:environment:)`` does,
    /// and converts the values of the command reached to their declared types.
    ///
    /// - Parameters:
    ///   - arguments: The command-line tokens after the executable's name.
    ///   - environment: The environment that options and flags with a declared variable fall back to.
    /// - Returns: The command to run, help or the version to print, or a usage error to report.
    public func parse(_ arguments: [String], environment: [String: String]) -> Outcome {
        switch CommandLineParser.parse(arguments, root: spec, environment: environment) {
        case let .help(text): return .help(text)
        case let .version(text): return .version(text)
        case let .usageError(error): return .usageError(error)
        case let .run(parsed):
            do throws(UsageError) {
                return .run(try leaf(at: parsed.commandPath.dropFirst()).bind!(parsed))
            } catch {
                return .usageError(error)
            }
        }
    }

    /// The leaf the parser reached, found by the names the parser took from this same tree.
    private func leaf(at path: ArraySlice<String>) -> CommandTree {
        guard let name = path.first else {
            precondition(bind != nil, "the parser reached the group '\(spec.name)', which it answers with help")
            return self
        }
        guard let child = children.first(where: { $0.spec.name == name }) else {
            preconditionFailure("the parser reached '\(name)', which is not below '\(spec.name)'")
        }
        return child.leaf(at: path.dropFirst())
    }
}

extension CommandTree {
    /// What ``CommandTree/parse(_:environment:)`` decided the program should do.
    public enum Outcome {
        /// Run this command; its values are converted and bound.
        case run(Invocation)
        /// Write this help text to stdout as it is and exit with ``ExitCode/success``.
        case help(String)
        /// Write this version text to stdout as it is and exit with ``ExitCode/success``.
        case version(String)
        /// Write the error's ``UsageError/description`` to stderr and exit with ``ExitCode/usage``.
        case usageError(UsageError)
    }
}

/// A command bound to its typed values, ready to run.
public struct Invocation {
    /// The command to run, from the executable's name on.
    public let commandPath: [String]
    /// The command's `run` with its values.
    private let body: () throws -> Void

    init(commandPath: [String], body: @escaping () throws -> Void) {
        self.commandPath = commandPath
        self.body = body
    }

    /// Runs the command.
    ///
    /// - Throws: Whatever the command throws.
    public func run() throws {
        try body()
    }
}
