import ArgumentKit
import CardinalLogging
import Foundation

/// A long command that cron or systemd runs: on a terminal it shows a progress line and a summary; otherwise
/// it logs its start, progress and outcome in the daemon's format, chosen by `--log-level` and `--log-format`.
protocol LoggingCommand: ParsableCommand {
    /// `--log-level`, declared with ``CommonOptions/logLevel``.
    var logLevel: RequiredOption<Logger.Level> { get }
    /// `--log-format`, declared with ``CommonOptions/logFormat``.
    var logFormat: RequiredOption<LogFormat> { get }
}

extension ParsedCommand where Command: LoggingCommand {
    /// Where this command reports: a progress line when standard error is a terminal, log lines otherwise.
    func commandLog() -> CommandLog {
        let name = commandPath.dropFirst().joined(separator: " ")
        guard isatty(FileHandle.standardError.fileDescriptor) != 1 else {
            return CommandLog(command: name, logger: nil)
        }
        let logger = Logger(minimumLevel: self.logLevel, format: self.logFormat).with(["cli.command": name])
        return CommandLog(command: name, logger: logger)
    }
}
