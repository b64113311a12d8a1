import Testing
@testable import CardinalCore

@Suite struct NDJSONDecodingTests {
    static func decode(_ lines: [String]) throws(BatchDecodingError) -> DecodedBatch {
        try BatchDecoder().decode(Array(lines.joined(separator: "\n").utf8), format: .ndjson, receivedAt: Fixture.now)
    }

    @Test("Each non-blank line is an event indexed among the non-blank lines")
    func indexesSkipBlankLines() throws {
        let batch = try Self.decode([EventJSON.impression.text, "", "   ", EventJSON.of(.click).text, "\t",
                                     EventJSON.of(.send).with("control", "1").text, ""])
        #expect(batch.count == 3)
        #expect(batch.events.map(\.index) == [0, 1])
        #expect(batch.rejections.map(\.index) == [2])
        #expect(batch.rejections.first?.code == .invalidType)
    }

    @Test("A line that is not JSON is invalid_json and the lines around it are kept")
    func invalidLine() throws {
        let batch = try Self.decode([EventJSON.impression.text, #"{"id": "abc", "type": "#, EventJSON.impression.text])
        #expect(batch.events.map(\.index) == [0, 2])
        let rejection = try #require(batch.rejections.first)
        #expect(rejection.index == 1)
        #expect(rejection.code == .invalidJSON)
        #expect(rejection.message.hasPrefix("line 2 is not valid JSON: invalid JSON at byte"))
        #expect(rejection.rawJSON == #"{"id": "abc", "type": "#)
        #expect(rejection.id == nil)
    }

    @Test("A line that is JSON but not an object is not_an_object")
    func nonObjectLine() throws {
        let batch = try Self.decode([#"[{"id":"x"}]"#, #""event""#])
        #expect(batch.rejections.map(\.code) == [.notAnObject, .notAnObject])
        #expect(batch.rejections.map(\.index) == [0, 1])
    }

    @Test("The evidence of a rejected line is the line as received, whitespace and all")
    func lineEvidence() throws {
        let line = #"{ "id" : "not-a-uuid" , "type" : "click" }"#
        let batch = try Self.decode([line])
        #expect(batch.rejections.first?.rawJSON == line)
        #expect(batch.rejections.first?.id == "not-a-uuid")
    }

    @Test("CRLF line endings and a missing final newline are accepted")
    func lineEndings() throws {
        let body = EventJSON.impression.text + "\r\n" + EventJSON.of(.click).text
        let batch = try BatchDecoder().decode(Array(body.utf8), format: .ndjson, receivedAt: Fixture.now)
        #expect(batch.events.count == 2)
        #expect(batch.rejections.isEmpty)
    }

    @Test("A body with no non-blank line is not a batch")
    func emptyBody() {
        #expect(throws: BatchDecodingError.self) { try Self.decode([]) }
        #expect(throws: BatchDecodingError.self) { try Self.decode(["", "  ", "\r"]) }
    }

    @Test("Invalid UTF-8 in a line is invalid_json, not a failed request")
    func invalidUTF8() throws {
        let body = Array(#"{"id":""#.utf8) + [0xFF] + Array("\"}\n".utf8) + Array(EventJSON.impression.text.utf8)
        let batch = try BatchDecoder().decode(body, format: .ndjson, receivedAt: Fixture.now)
        #expect(batch.rejections.map(\.code) == [.invalidJSON])
        #expect(batch.events.map(\.index) == [1])
    }
}
