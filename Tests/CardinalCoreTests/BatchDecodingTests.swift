import Foundation
import Testing
@testable import CardinalCore

@Suite struct BatchDecodingTests {
    static let decoder = BatchDecoder()

    static func decode(_ body: String, format: BatchFormat = .json) throws(BatchDecodingError) -> DecodedBatch {
        try decoder.decode(Array(body.utf8), format: format, receivedAt: Fixture.now)
    }

    static func batch(_ elements: [String]) -> String {
        #"{"events":["# + elements.joined(separator: ",") + "]}"
    }

    @Test("A mixed batch keeps the good events and rejects the bad one with its index")
    func mixedBatch() throws {
        let bad = EventJSON.impression.with("id", #""e2""#).with("control", #""true""#)
        let body = Self.batch([EventJSON.impression.text, bad.text, EventJSON.of(.click).text, "42"])
        let batch = try Self.decode(body)
        #expect(batch.count == 4)
        #expect(batch.events.map(\.index) == [0, 2])
        #expect(batch.events.map(\.event.type) == [.impression, .click])
        #expect(batch.rejections.map(\.index) == [1, 3])
        #expect(batch.rejections.map(\.code) == [.invalidUUID, .notAnObject])
        #expect(batch.rejections[0].id == "e2")
        #expect(batch.rejections[0].rawJSON == bad.text)
        #expect(batch.rejections[1].rawJSON == "42")
        #expect(batch.rejections[1].id == nil)
    }

    @Test("The evidence of a rejected element is re-serialized compactly")
    func compactEvidence() throws {
        let batch = try Self.decode(#"{ "events" : [ { "id" : "x" ,  "type":"click" } ] }"#)
        #expect(batch.rejections.first?.rawJSON == #"{"id":"x","type":"click"}"#)
    }

    @Test("Events with the same id in one request are all kept: storage deduplicates, not validation")
    func duplicatesAreNotRejected() throws {
        let batch = try Self.decode(Self.batch([EventJSON.impression.text, EventJSON.impression.text]))
        #expect(batch.events.count == 2)
        #expect(batch.rejections.isEmpty)
    }

    @Test("An empty events array is a batch of no events")
    func emptyArray() throws {
        let batch = try Self.decode(#"{"events":[]}"#)
        #expect(batch.count == 0 && batch.events.isEmpty && batch.rejections.isEmpty)
    }

    @Test("A body that is not a batch at all throws notABatch",
          arguments: ["", "  \n", "{", #"{"events":[1,]}"#, "[]", #"{"events":{}}"#, #"{"evnts":[]}"#, "{}",
                      #"{"events":[],"app":"x"}"#, #"{"events":[],"events":[]}"#, "null", #"{"events":[]} x"#])
    func notABatch(body: String) {
        #expect(throws: BatchDecodingError.self) { try Self.decode(body) }
    }

    @Test("The 400 messages say what is wrong with the body")
    func notABatchMessages() {
        func message(_ body: String) -> String? {
            do {
                _ = try Self.decode(body)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message("")?.hasPrefix("the body is empty") == true)
        #expect(message("{")?.hasPrefix("the body is not valid JSON: invalid JSON at byte 1") == true)
        #expect(message("[]") == #"the body must be a JSON object {"events":[…]}, got an array"#)
        #expect(message("{}") == #"the body has no "events" array; send {"events":[…]}"#)
        #expect(message(#"{"events":"x"}"#) == #""events" must be an array, got a string"#)
        #expect(message(#"{"event":[]}"#)?.contains(#"did you mean "events"?"#) == true)
        #expect(message(EventJSON.impression.text)?.contains("looks like a single event") == true)
    }

    @Test("A byte order mark before the body is ignored")
    func byteOrderMark() throws {
        let body = [0xEF, 0xBB, 0xBF] + Array(Self.batch([EventJSON.impression.text]).utf8)
        let batch = try Self.decoder.decode(body, format: .json, receivedAt: Fixture.now)
        #expect(batch.events.count == 1)
    }

    @Test("Data and byte-array bodies decode alike")
    func dataBody() throws {
        let body = Self.batch([EventJSON.impression.text, "1"])
        let fromData = try Self.decoder.decode(Data(body.utf8), format: .json, receivedAt: Fixture.now)
        #expect(fromData == (try Self.decode(body)))
    }

    @Test("The decoder applies its policy to every event")
    func decoderPolicy() throws {
        let decoder = BatchDecoder(policy: ValidationPolicy(maxPropertiesBytes: 8))
        let body = Self.batch([EventJSON.impression.with("properties", #"{"k":"xx"}"#).text])
        let batch = try decoder.decode(Array(body.utf8), format: .json, receivedAt: Fixture.now)
        #expect(batch.rejections.map(\.code) == [.propertiesTooLarge])
    }
}
