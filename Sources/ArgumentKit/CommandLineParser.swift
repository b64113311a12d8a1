/// Parses a command line against a tree of ``CommandSpec``s, the way swift-argument-parser would.
///
/// ```swift
/// switch CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()), root: Cardinal.spec,
///                                environment: ProcessInfo.processInfo.environment) {
/// case .help(let text):
///     print(text, terminator: "")
///     exit(ExitCode.success)
/// case .usageError(let error):
///     FileHandle.standardError.write(Data(error.description.utf8))
///     exit(ExitCode.usage)
/// case .run(let parsed):
///     switch parsed.commandPath.dropFirst() { case ["keys", "create"]: … }
/// }
/// ```
///
/// The grammar:
/// - Words select subcommands until a command without subcommands is reached; the remaining words
///   are its positional arguments. `help` where a subcommand is expected, followed by a subcommand
///   path, asks for that command's help.
/// - `--name value`, `--name=value` and `-n value` give options; `--flag` and `-f` give flags.
///   Options and flags belong to the command that declares them and may come anywhere after its name.
/// - `--` ends options: every later token is a positional word, even one starting with `-`.
/// - `-h` or `--help` anywhere before `--` prints help for the command reached, ignoring any error.
/// - When the root has a ``CommandSpec/version``, `--version` anywhere before `--` prints it, ignoring
///   any error, unless help was asked for too (help wins, as in swift-argument-parser).
/// - A command group given no subcommand prints its help and exits successfully, as
///   swift-argument-parser does for a group without a default subcommand.
public enum CommandLineParser {
    /// Decides what to do with a command line.
    ///
    /// The spec tree is checked first; a contradiction in it (see ``CommandSpec``) stops the program.
    ///
    /// - Parameters:
    ///   - arguments: The command-line tokens after the executable's name.
    ///   - root: The executable's command; its name starts every command path.
    ///   - environment: The environment that options and flags with a declared variable fall back to.
    /// - Returns: The command to run with its values, help to print, or a usage error to report.
    public static func parse(
        _ arguments: [String],
        root: CommandSpec,
        environment: [String: String]
    ) -> ParseOutcome {
        root.checkConsistency(path: [root.name])
        var scanner = ArgumentScanner(tokens: arguments, root: root)
        func help() -> ParseOutcome {
            .help(HelpRenderer.render(scanner.command, path: scanner.path, listsVersionFlag: root.version != nil))
        }
        func version() -> ParseOutcome {
            .version("\(root.name) \(root.version ?? "")\n")
        }
        do throws(UsageError) {
            try scanner.scan()
            if scanner.helpFlagGiven || scanner.helpWordGiven {
                return help()
            }
            if scanner.versionFlagGiven {
                return version()
            }
            if scanner.command.isGroup {
                return help()
            }
            return .run(try scanner.resolve(environment: environment))
        } catch {
            if scanner.helpFlagGiven {
                return help()
            }
            return scanner.versionFlagGiven ? version() : .usageError(error)
        }
    }
}
