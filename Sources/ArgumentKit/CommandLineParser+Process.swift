import Foundation

extension CommandLineParser {
    /// Parses this process's arguments and environment against `root`, the way an executable's `main` does:
    /// help and the version go to standard output with exit 0, a usage error to standard error with exit 64,
    /// and only a command to run comes back.
    public static func parseProcessArgumentsOrExit(root: CommandSpec) -> ParsedArguments {
        switch parse(Array(CommandLine.arguments.dropFirst()), root: root, environment: ProcessInfo.processInfo.environment) {
        case let .help(text), let .version(text):
            ProcessExit.printing(text)
        case let .usageError(error):
            ProcessExit.failing(with: error)
        case let .run(arguments):
            return arguments
        }
    }
}
