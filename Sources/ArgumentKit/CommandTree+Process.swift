import Foundation

extension CommandTree {
    /// Parses this process's arguments and environment, the way an executable's `main` does: help and the
    /// version go to standard output with exit 0, a usage error to standard error with exit 64, and only a
    /// command to run comes back.
    public func parseProcessArgumentsOrExit() -> Invocation {
        switch parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
        case let .help(text), let .version(text):
            ProcessExit.printing(text)
        case let .usageError(error):
            ProcessExit.failing(with: error)
        case let .run(invocation):
            return invocation
        }
    }
}
