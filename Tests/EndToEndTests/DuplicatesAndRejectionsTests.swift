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
