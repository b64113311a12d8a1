import Foundation
import Synchronization

/// What a ``Logger`` and the loggers made from it by ``Logger/with(_:)`` share: the level, the format, the
/// output, the summarizer of repeated lines and the clocks.
final class LoggerCore: Sendable {
    let minimumLevel: Logger.Level
    private let format: LogFormat
    private let output: LogOutput
    private let summarizer: Mutex<RepeatSummarizer>
    /// The summarizer's interval, as summary lines show it: `60s`.
    private let intervalText: String
    /// The clock the summarizer's intervals are measured on; a test moves it by hand.
    private let clock: @Sendable () -> ContinuousClock.Instant
    /// The time written on each line.
    private let wallClock: @Sendable () -> Date
    private let summaryTimer = Mutex<Task<Void, Never>?>(nil)

    init(
        minimumLevel: Logger.Level, format: LogFormat, output: LogOutput, summarizer: RepeatSummarizer,
        clock: @escaping @Sendable () -> ContinuousClock.Instant, wallClock: @escaping @Sendable () -> Date
    ) {
        self.minimumLevel = minimumLevel
        self.format = format
        self.output = output
        self.summarizer = Mutex(summarizer)
        self.intervalText = "\(summarizer.interval.components.seconds)s"
        self.clock = clock
        self.wallClock = wallClock
    }

    deinit {
        summaryTimer.withLock { $0?.cancel() }
    }

    /// Writes the due summaries every second, so that a flood that stops still gets its count written.
    func startSummaryTimer() {
        summaryTimer.withLock { timer in
            timer = Task.detached { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    self?.writeDueSummaries()
                }
            }
        }
    }

    func write(_ level: Logger.Level, _ message: String, _ fields: [LogField]) {
        output.write(format.line(time: wallClock(), level: level, message: message, fields: fields))
    }

    func writeUnlessRepeated(_ key: RepeatSummarizer.Key, fields: [LogField]) {
        let now = clock()
        let (due, decision) = summarizer.withLock { summarizer in
            (summarizer.due(at: now), summarizer.record(key, at: now))
        }
        write(due)
        if decision == .write {
            write(key.level, key.message, fields)
        }
    }

    func writeDueSummaries() {
        let now = clock()
        write(summarizer.withLock { $0.due(at: now) })
    }

    func writePendingSummaries() {
        write(summarizer.withLock { $0.drain() })
    }

    private func write(_ summaries: [RepeatSummary]) {
        for summary in summaries {
            write(summary.key.level, summary.key.message, summary.key.fields + [
                LogField("log.repeated", String(summary.repeats)), LogField("log.interval", intervalText),
            ])
        }
    }
}
