import Foundation
import Synchronization

/// Writes one line per event worth logging, in logfmt or JSON, to standard error:
/// `time=2026-11-30T12:00:00Z level=info msg="…" ingest.request_id=…`. Used by `cardinald` and by the long
/// `cardinal` commands, so that both write the same lines to the same journal.
///
/// A logger made by ``with(_:)`` adds its metadata (a request id) to every line and shares everything else with
/// the logger it came from. Lines logged with `summarizedBy:` are summarised when they repeat (see
/// ``RepeatSummarizer``).
///
/// Never give it request bodies, keys, `Authorization` headers or connection strings with passwords.
public final class Logger: Sendable {
    private let core: LoggerCore
    /// Fields written on every line of this logger, before the line's own.
    private let metadata: [LogField]

    /// Makes a logger that writes lines at `minimumLevel` and above.
    ///
    /// - Parameters:
    ///   - minimumLevel: The least severe level written.
    ///   - format: logfmt or JSON.
    ///   - output: Where the lines go.
    ///   - repeatInterval: How long repeated lines are counted before their summary is written.
    public convenience init(
        minimumLevel: Level, format: LogFormat = .logfmt, output: LogOutput = .standardError,
        repeatInterval: Duration = .seconds(60)
    ) {
        self.init(core: LoggerCore(
            minimumLevel: minimumLevel, format: format, output: output,
            summarizer: RepeatSummarizer(interval: repeatInterval),
            clock: { ContinuousClock.now }, wallClock: { Date.now }))
        core.startSummaryTimer()
    }

    init(core: LoggerCore, metadata: [LogField] = []) {
        self.core = core
        self.metadata = metadata
    }

    /// A logger that writes `metadata` on each line, before the line's own fields: `["ingest.request_id": id]`.
    public func with(_ metadata: KeyValuePairs<String, String>) -> Logger {
        Logger(core: core, metadata: self.metadata + LogField.list(metadata))
    }

    /// Whether a line at `level` would be written, to skip building costly fields.
    public func isLogging(_ level: Level) -> Bool {
        level >= core.minimumLevel
    }

    /// Logs `message` with `fields` (keys prefixed by area: `ingest.`, `db.`, `http.`).
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard isLogging(level) else {
            return
        }
        core.write(level, message, metadata + LogField.list(fields))
    }

    /// Logs `message` unless a line alike was written less than the repeat interval ago; then it is counted,
    /// and one line per interval says how many there were (`log.repeated=311839 log.interval=60s`).
    ///
    /// - Parameters:
    ///   - level: The severity.
    ///   - message: What happened.
    ///   - fields: The line's fields.
    ///   - keys: The keys of the fields that make lines alike, naming who and why: `["ingest.app",
    ///     "http.status"]`. A key the line does not have is left out.
    public func log(
        _ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:], summarizedBy keys: [String]
    ) {
        guard isLogging(level) else {
            return
        }
        let all = metadata + LogField.list(fields)
        let key = RepeatSummarizer.Key(level: level, message: message, fields: all.filter { keys.contains($0.key) })
        core.writeUnlessRepeated(key, fields: all)
    }

    /// Writes the summaries whose interval has ended; a timer calls it every second.
    public func writeDueSummaries() {
        core.writeDueSummaries()
    }

    /// Writes the summary of every line counted so far, interval ended or not: at shutdown, so that no count
    /// is lost.
    public func writePendingSummaries() {
        core.writePendingSummaries()
    }
}
