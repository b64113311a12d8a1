import Testing

@testable import CardinalLogging

@Suite struct RepeatSummarizerTests {
    private let start = ContinuousClock.now
    private let refused = RepeatSummarizer.Key(
        level: .info, message: "request refused", fields: [LogField("ingest.app", "1"), LogField("http.status", "429")])
    private let otherApp = RepeatSummarizer.Key(
        level: .info, message: "request refused", fields: [LogField("ingest.app", "2"), LogField("http.status", "429")])

    @Test("The first line of a key is written and the rest of its interval counted")
    func firstWrittenRestCounted() {
        var summarizer = RepeatSummarizer(interval: .seconds(60))

        let decisions = (0..<4).map { summarizer.record(refused, at: start + .seconds($0)) }

        #expect(decisions == [.write, .count, .count, .count])
        #expect(summarizer.due(at: start + .seconds(59)).isEmpty, "the interval has not ended")
        #expect(summarizer.due(at: start + .seconds(60)) == [RepeatSummary(key: refused, repeats: 3)])
    }

    @Test("Each key is counted on its own: another app's first line is written at once")
    func keysAreSeparate() {
        var summarizer = RepeatSummarizer(interval: .seconds(60))

        #expect(summarizer.record(refused, at: start) == .write)
        #expect(summarizer.record(otherApp, at: start + .seconds(1)) == .write)
        #expect(summarizer.record(refused, at: start + .seconds(2)) == .count)
        #expect(summarizer.due(at: start + .seconds(61)) == [RepeatSummary(key: refused, repeats: 1)])
    }

    @Test("A sustained flood gives one summary per interval, and its lines are never written again")
    func floodIsSummarisedEveryInterval() {
        var summarizer = RepeatSummarizer(interval: .seconds(60))
        var written = 0
        var summaries: [RepeatSummary] = []

        for second in 0..<300 {
            let now = start + .seconds(second)
            summaries += summarizer.due(at: now)
            for _ in 0..<1000 where summarizer.record(refused, at: now) == .write {
                written += 1
            }
        }
        summaries += summarizer.drain()

        #expect(written == 1)
        #expect(summaries.count == 5)
        #expect(summaries.reduce(0) { $0 + $1.repeats } == 300 * 1000 - 1, "every line is counted once")
    }

    @Test("A key quiet for a whole interval is forgotten, so its next line is written at once")
    func quietKeyIsForgotten() {
        var summarizer = RepeatSummarizer(interval: .seconds(60))

        #expect(summarizer.record(refused, at: start) == .write)
        #expect(summarizer.due(at: start + .seconds(60)).isEmpty, "nothing was counted, so nothing is summarised")
        #expect(summarizer.keyCount == 0)
        #expect(summarizer.record(refused, at: start + .seconds(90)) == .write)
    }

    @Test("Draining summarises every key that counted lines, interval ended or not, and forgets them all")
    func drainSummarisesEverything() {
        var summarizer = RepeatSummarizer(interval: .seconds(60))
        _ = summarizer.record(refused, at: start)
        _ = summarizer.record(refused, at: start + .seconds(1))
        _ = summarizer.record(otherApp, at: start + .seconds(2))

        #expect(summarizer.drain() == [RepeatSummary(key: refused, repeats: 1)])
        #expect(summarizer.keyCount == 0)
        #expect(summarizer.due(at: start + .seconds(600)).isEmpty)
    }

    @Test("Keys beyond the limit share one count per level and message, so memory stays bounded")
    func keysBeyondTheLimitShareACount() {
        var summarizer = RepeatSummarizer(interval: .seconds(60), maxKeys: 2)
        let remotes = (0..<10).map {
            RepeatSummarizer.Key(level: .info, message: "request refused", fields: [LogField("http.remote", "10.0.0.\($0)")])
        }

        let decisions = remotes.map { summarizer.record($0, at: start) }

        #expect(decisions == [.write, .write, .write] + Array(repeating: .count, count: 7))
        #expect(summarizer.keyCount == 3, "two keys and the shared one")
        #expect(summarizer.due(at: start + .seconds(60))
                == [RepeatSummary(key: RepeatSummarizer.overflow(of: remotes[2]), repeats: 7)])
    }
}
