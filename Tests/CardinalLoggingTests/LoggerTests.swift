import Foundation
import Synchronization
import Testing

@testable import CardinalLogging

@Suite struct LoggerTests {
    /// A logger writing into memory, with a clock the test moves.
    private struct Harness {
        /// The lines written and the time, shared with the logger's closures.
        private final class State: Sendable {
            let lines = Mutex<[String]>([])
            let now = Mutex(ContinuousClock.now)
        }

        private let state = State()
        let logger: Logger

        init(minimumLevel: Logger.Level = .info, format: LogFormat = .logfmt) {
            let state = self.state
            logger = Logger(core: LoggerCore(
                minimumLevel: minimumLevel, format: format,
                output: LogOutput { line in state.lines.withLock { $0.append(line) } },
                summarizer: RepeatSummarizer(interval: .seconds(60)),
                clock: { state.now.withLock { $0 } }, wallClock: { Date(timeIntervalSince1970: 0) }))
        }

        var written: [String] { state.lines.withLock { $0 } }

        func advance(_ duration: Duration) {
            state.now.withLock { $0 += duration }
        }
    }

    @Test("Lines below the minimum level are not written")
    func levels() {
        let harness = Harness(minimumLevel: .warning)

        harness.logger.log(.info, "spool ready")
        harness.logger.log(.error, "database unavailable")

        #expect(harness.written.count == 1)
        #expect(harness.written.first?.contains("level=error msg=\"database unavailable\"") == true)
        #expect(!harness.logger.isLogging(.debug) && harness.logger.isLogging(.warning))
    }

    @Test("A logger made with metadata writes it on every line before the line's own fields")
    func metadataComesFirst() {
        let harness = Harness()
        let request = harness.logger.with(["ingest.request_id": "k3-17"])

        request.log(.warning, "database refused a batch", ["db.error": "boom"])
        harness.logger.log(.info, "stopped")

        #expect(harness.written[0].hasSuffix(#"msg="database refused a batch" ingest.request_id=k3-17 db.error=boom"# + "\n"))
        #expect(!harness.written[1].contains("request_id"), "the parent logger is unchanged")
    }

    @Test("Repeated lines are written once, then summarised with their count when the interval ends")
    func repeatsAreSummarised() {
        let harness = Harness()
        for id in 1...5 {
            harness.logger.log(.info, "request refused", ["ingest.request_id": "r\(id)", "ingest.app": "7", "http.status": "429"],
                               summarizedBy: ["ingest.app", "http.status"])
        }
        #expect(harness.written.count == 1)
        #expect(harness.written[0].contains("ingest.request_id=r1"))

        harness.advance(.seconds(60))
        harness.logger.writeDueSummaries()

        #expect(harness.written.count == 2)
        #expect(harness.written[1].hasSuffix(
            #"level=info msg="request refused" ingest.app=7 http.status=429 log.repeated=4 log.interval=60s"# + "\n"))
    }

    @Test("Pending counts are written at shutdown even before their interval ends")
    func pendingSummariesAtShutdown() {
        let harness = Harness(format: .json)
        for _ in 1...3 {
            harness.logger.log(.warning, "cannot look up an ingest key", ["db.error": "timeout"], summarizedBy: ["db.error"])
        }

        harness.logger.writePendingSummaries()

        #expect(harness.written.count == 2)
        #expect(harness.written[1].hasSuffix(#""db.error":"timeout","log.repeated":"2","log.interval":"60s"}"# + "\n"))
    }
}
