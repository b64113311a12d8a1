import Testing
@testable import CardinalCore

/// The bounds on the work one body can cause, whatever its bytes spell.
@Suite struct BatchLimitsTests {
    private static func decode(_ text: String, format: BatchFormat, maxEvents: Int) throws(BatchDecodingError) -> DecodedBatch {
        try BatchDecoder(maxEvents: maxEvents).decode(Array(text.utf8), format: format, receivedAt: Fixture.now)
    }

    @Test("An NDJSON body with one line more than the event limit is refused as too many events")
    func ndjsonPastTheLimit() throws {
        let fiveZeros = Array(repeating: "0", count: 5).joined(separator: "\n")
        #expect(throws: BatchDecodingError.tooManyEvents(limit: 4)) {
            try Self.decode(fiveZeros, format: .ndjson, maxEvents: 4)
        }
        let batch = try Self.decode(fiveZeros, format: .ndjson, maxEvents: 5)
        #expect(batch.count == 5)
        #expect(batch.rejections.map(\.code) == Array(repeating: .notAnObject, count: 5))
    }

    @Test("A JSON body with one element more than the event limit is refused as too many events")
    func jsonPastTheLimit() throws {
        let body = #"{"events":["# + Array(repeating: "0", count: 5).joined(separator: ",") + "]}"
        #expect(throws: BatchDecodingError.tooManyEvents(limit: 4)) {
            try Self.decode(body, format: .json, maxEvents: 4)
        }
        #expect(try Self.decode(body, format: .json, maxEvents: 5).count == 5)
    }

    @Test("A too-many-events answer says the limit")
    func tooManyEventsMessage() {
        #expect(BatchDecodingError.tooManyEvents(limit: 2000).message
            == "the body holds more than 2000 events; send at most 2000 per request")
    }

    @Test("The shape of a streamed JSON body is still checked: a stray top-level field after the events")
    func shapeCheckedAfterStreaming() {
        let body = #"{"events":[],"event":1}"#
        #expect(throws: BatchDecodingError.self) { try Self.decode(body, format: .json, maxEvents: 10) }
    }

    @Test("An event with more JSON values than the per-event budget is invalid_json, and its neighbours are kept")
    func valueBudgetPerLine() throws {
        let tooMany = "[" + Array(repeating: "0", count: Limits.maxJSONValuesPerEvent).joined(separator: ",") + "]"
        let justEnough = "[" + Array(repeating: "0", count: Limits.maxJSONValuesPerEvent - 1).joined(separator: ",") + "]"
        let batch = try Self.decode([tooMany, justEnough, EventJSON.impression.text].joined(separator: "\n"),
                                    format: .ndjson, maxEvents: 10)
        #expect(batch.rejections.map(\.code) == [.invalidJSON, .notAnObject])
        #expect(batch.rejections.first?.message.contains("more than \(Limits.maxJSONValuesPerEvent) values") == true)
        #expect(batch.events.map(\.index) == [2])
    }

    @Test("The evidence kept of a huge rejected line is cut to the evidence limit and marked")
    func evidenceIsCut() throws {
        let huge = String(repeating: "x", count: Limits.rejectedRawMaxBytes * 3)
        let batch = try Self.decode(huge, format: .ndjson, maxEvents: 10)
        let raw = try #require(batch.rejections.first?.rawJSON)
        #expect(raw.utf8.count == Limits.rejectedRawMaxBytes)
        #expect(raw.hasSuffix("…"))
        #expect(raw.hasPrefix("xxxx"))
    }

    @Test("Evidence within the limit is kept whole")
    func shortEvidenceKept() {
        let text = String(repeating: "é", count: Limits.rejectedRawMaxBytes / 2)
        #expect(BatchDecoder.evidence(text) == text)
    }
}
