import Foundation
import Testing

/// Idempotency on `id`, and bad events refused one by one and kept as evidence.
@Suite struct DuplicatesAndRejectionsTests {
    @Test("The same batch sent again is answered as all duplicates and adds no row")
    func retriedBatchIsAllDuplicates() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let events = TestEvent.impressions(30)

        let first = try client.ingest(events)
        let tables = try fixture.tables()
        let countAfterFirst = try tables.eventCount()
        let again = try client.ingest(events)
        let fromAnotherConnection = try IngestClient(port: daemon.port, key: fixture.key).ingest(events.reversed())

        #expect(first.counts == .accepted(30))
        #expect(again.counts == .init(accepted: 0, duplicates: 30, rejected: 0))
        #expect(fromAnotherConnection.counts == .init(accepted: 0, duplicates: 30, rejected: 0))
        #expect(countAfterFirst == 30)
        #expect(try tables.eventCount() == 30)
        #expect(try tables.storedIDs() == Set(events.map(\.id)))
    }

    @Test("An event repeated inside one batch is stored once and counted once as a duplicate")
    func repeatInsideOneBatch() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let event = TestEvent.impression()
        let other = TestEvent.impression()

        let result = try fixture.client(of: daemon).ingest([event, other, event])

        #expect(result.counts == .init(accepted: 2, duplicates: 1, rejected: 0))
        #expect(try fixture.tables().eventCount() == 2)
    }

    @Test("A mixed batch stores the good events and rejects and records each bad one with its code")
    func mixedBatch() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let batch = MixedBatch()

        let reply = try fixture.client(of: daemon).post(body: batch.body)
        let result = try IngestResult(reply)

        #expect(result.counts == .init(
            accepted: batch.goodIDs.count, duplicates: 0, rejected: batch.expectedRejections.count))
        #expect(result.errors.map(\.index) == batch.expectedRejections.map(\.index))
        #expect(result.errors.map(\.code) == batch.expectedRejections.map(\.code))
        #expect(result.errors.map(\.id) == batch.expectedRejections.map(\.id))
        #expect(result.errors.allSatisfy { !$0.message.isEmpty })
        let unknownField = result.errors.first { $0.code == "unknown_field" }
        #expect(unknownField?.message.contains("campaign_id") == true, "a typo's message suggests the right name")

        let tables = try fixture.tables()
        #expect(try tables.storedIDs() == Set(batch.goodIDs))
        let stored = try tables.rejections()
        let appID = try tables.appID(named: IngestFixture.appName)
        #expect(stored.map(\.index) == batch.expectedRejections.map(\.index))
        #expect(stored.map(\.code) == batch.expectedRejections.map(\.code))
        #expect(stored.map(\.eventID) == batch.expectedRejections.map(\.id))
        #expect(stored.map(\.message) == result.errors.map(\.message))
        #expect(stored.allSatisfy { $0.appID == appID })
        #expect(stored.allSatisfy { $0.requestID != nil && $0.requestID == reply.header("X-Request-Id") })
        for (row, expected) in zip(stored, batch.expectedRejections) {
            #expect(try Self.sameJSON(row.raw, expected.raw), "raw of index \(row.index): \(row.raw)")
        }
    }

    /// Whether two JSON texts hold the same value, whatever their spacing and key order.
    private static func sameJSON(_ left: String, _ right: String) throws -> Bool {
        let parse = { (text: String) in
            try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject
        }
        return try parse(left) == parse(right)
    }
}

/// A batch of good and bad events, with the rejection each bad one must get.
struct MixedBatch {
    struct Expected {
        let index: Int
        let id: String?
        let code: String
        let raw: String
    }

    private(set) var elements: [String] = []
    private(set) var goodIDs: [UUID] = []
    private(set) var expectedRejections: [Expected] = []

    init() {
        let now = EpochMilliseconds.hoursAgo(0)
        let day: Int64 = 86_400_000
        good(TestEvent.impression())
        bad("missing_field", #"{"id":"%ID%","channel":"content_card","time":\#(now),"user_id":"u","campaign_id":"c"}"#)
        bad("invalid_uuid", #"{"id":"not-a-uuid","type":"impression","channel":"push","time":\#(now),"user_id":"u","campaign_id":"c"}"#, id: "not-a-uuid")
        good(TestEvent.impression(user: "user-2"))
        bad("unknown_field", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now),"user_id":"u","campain_id":"c"}"#)
        bad("time_in_future", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now + 3 * day),"user_id":"u","campaign_id":"c"}"#)
        bad("time_too_old", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now - 900 * day),"user_id":"u","campaign_id":"c"}"#)
        bad("control_interaction", #"{"id":"%ID%","type":"click","channel":"content_card","time":\#(now),"user_id":"u","campaign_id":"c","control":true}"#)
        bad("too_long", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now),"user_id":"\#(String(repeating: "x", count: 512))","campaign_id":"c"}"#)
        bad("not_an_object", "42", id: nil)
        bad("invalid_type", #"{"id":"%ID%","type":"send","channel":"push","time":\#(now),"user_id":"u","campaign_id":"c","control":"true"}"#)
        let conversion = UUID()
        good(TestEvent(id: conversion, json: #"{"id":"\#(conversion.lowercased)","type":"conversion","time":\#(now),"user_id":"u","name":"signup"}"#))
        bad("not_allowed", #"{"id":"%ID%","type":"conversion","channel":"push","time":\#(now),"user_id":"u","name":"signup"}"#)
        bad("invalid_time", #"{"id":"%ID%","type":"impression","channel":"push","time":"yesterday","user_id":"u","campaign_id":"c"}"#)
        bad("missing_field", #"{"id":"%ID%","type":"impression","channel":"push","time":\#(now),"campaign_id":"c"}"#)
    }

    /// `{"events":[…]}` of every element in order.
    var body: [UInt8] {
        Array("{\"events\":[\(elements.joined(separator: ","))]}".utf8)
    }

    private mutating func good(_ event: TestEvent) {
        elements.append(event.json)
        goodIDs.append(event.id)
    }

    /// A bad element; `%ID%` in it (and in `id`, the `id` the rejection must show) is replaced by a new UUID.
    private mutating func bad(_ code: String, _ template: String, id: String? = "%ID%") {
        let newID = UUID().lowercased
        let json = template.replacingOccurrences(of: "%ID%", with: newID)
        let expectedID = id?.replacingOccurrences(of: "%ID%", with: newID)
        expectedRejections.append(Expected(index: elements.count, id: expectedID, code: code, raw: json))
        elements.append(json)
    }
}
