import ArgumentKit
import CardinalLogging
import Foundation

/// How a long command reports its start, progress and outcome: for a person at a terminal, a progress line
/// redrawn in place and summary sentences; for cron and systemd, log lines in the daemon's format
/// (`msg="report run finished" cli.summary="…"`), so that the journal reads the same for both binaries.
final class CommandLog {
    /// The command's words, such as `report run`, that start every message.
    private let command: String
    /// The logger when standard error is not a terminal; `nil` on a terminal.
    private let logger: Logger?
    private let progressLine = ProgressLine()
    /// When the last progress line was logged, so that a fold reporting every batch logs every 10 s at most.
    private var lastProgressLogged: ContinuousClock.Instant?
    private let started = ContinuousClock.now

    /// The least time between two logged progress lines; a terminal shows every one.
    static let progressInterval: Duration = .seconds(10)

    init(command: String, logger: Logger?) {
        self.command = command
        self.logger = logger
    }

    /// Logs that the command starts, with what it will work on; a person at a terminal sees the progress.
    func started(_ fields: KeyValuePairs<String, String> = [:]) {
        logger?.log(.info, "\(command) started", fields)
    }

    /// A milestone (`computing the control report, step 2 of 4`): always logged.
    func step(_ text: String) {
        progressLine.show(text)
        logger?.log(.info, "\(command) step", ["cli.step": text])
    }

    /// A count under way (`folding 1,000 of 20,000 events`): logged every ``progressInterval`` at most.
    func progress(_ text: String) {
        progressLine.show(text)
        let now = ContinuousClock.now
        if let logger, lastProgressLogged.map({ now - $0 >= Self.progressInterval }) ?? true {
            lastProgressLogged = now
            logger.log(.info, "\(command) progress", ["cli.progress": text])
        }
    }

    /// A sentence for people that ends a part of the work: on a terminal the line itself, else logged as
    /// `msg="<command> <event>"` with the sentence in `cli.summary` and the elapsed seconds.
    func summary(
        _ event: String, _ text: String, level: Logger.Level = .info, _ fields: KeyValuePairs<String, String> = [:]
    ) {
        progressLine.clear()
        guard let logger else {
            return Console.warn(text)
        }
        let elapsed = String(format: "%.1f", (ContinuousClock.now - started).seconds)
        logger.with(["cli.summary": text, "cli.elapsed_seconds": elapsed]).log(level, "\(command) \(event)", fields)
    }

    /// Runs the command's work. A failure is logged as `msg="<command> failed"` and ends the command with
    /// exit 1 and nothing more on standard error; on a terminal, and for usage errors, it is thrown on for
    /// `main` to report as usual.
    func run(_ body: () throws -> Void) throws {
        defer { progressLine.clear() }
        do {
            try body()
        } catch let error as UsageError {
            throw error
        } catch let error as CommandExit {
            throw error
        } catch {
            guard let logger else {
                throw error
            }
            progressLine.clear()
            logger.log(.error, "\(command) failed", ["error": String(describing: error)])
            throw CommandExit(code: ExitCode.failure)
        }
    }
}
