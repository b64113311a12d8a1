import Foundation
import Testing
import TestSupport

/// docs/sdk-guide.md against the real daemon: every Cardinal event the guide gives for an SDK call, posted in one
/// batch, is accepted or refused with the code its "today" column names.
@Suite struct SDKGuideTests {
    /// One example of the guide: its SDK call, the event's JSON (without id, time and user) and the verdict.
    private struct Example {
        let call: String
        let json: String
        /// `nil` when the guide says accepted, else the rejection code it names.
        let refusal: String?
    }

    /// The table rows of the guide that give an event, in order.
    private static func examples() throws -> [Example] {
        let guide = try String(
            contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/sdk-guide.md"), encoding: .utf8
        )
        return guide.split(separator: "\n").compactMap { line -> Example? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            // "| call | methods | `{…}` | today |" splits into six cells, the outer two empty.
            guard cells.count == 6, cells[3].hasPrefix("`{"), cells[3].hasSuffix("}`") else {
                return nil
            }
            let refusal = cells[4].hasPrefix("refused (`")
                ? cells[4].dropFirst("refused (`".count).prefix { $0 != "`" }.description : nil
            return Example(call: cells[1], json: String(cells[3].dropFirst().dropLast()), refusal: refusal)
        }
    }

    @Test("Every event of the SDK guide is accepted or refused by the daemon as the guide says")
    func guideExamplesAsTheDaemonJudgesThem() throws {
        let examples = try Self.examples()
        // Content cards and in-app messages 7, banners, flags and push 8, app events 4 (changeUser has none).
        #expect(examples.count == 19)
        let time = EpochMilliseconds.rfc3339(Date.now.addingTimeInterval(-3_600))
        let events = examples.map { example in
            let id = UUID()
            let json = #"{"id":"\#(id.uuidString)","time":"\#(time)","user_id":"u1","device_id":"d1","#
                + example.json.dropFirst()
            return TestEvent(id: id, json: json)
        }
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let result = try fixture.client(of: daemon).ingest(events)

        let refusals = Dictionary(uniqueKeysWithValues: result.errors.map { ($0.index, $0.code) })
        for (index, example) in examples.enumerated() {
            #expect(refusals[index] == example.refusal, "\(example.call): \(example.json)")
        }
        #expect(result.accepted == examples.filter { $0.refusal == nil }.count)
    }
}
