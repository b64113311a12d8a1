import CardinalCore
import CardinalStore
import Foundation
import Synchronization
import Testing

@testable import CardinalIngest

@Suite struct SpoolReplayerTests {
    /// A database stand-in: stores event ids, refuses batches holding a poisoned id, or is down.
    final class FakeDatabase: BatchSink, Sendable {
        let stored = Mutex<[UUID]>([])
        let transactions = Mutex(0)
        let isDown = Atomic(false)
        let poisoned = Mutex<Set<UUID>>([])

        func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
            if isDown.load(ordering: .relaxed) {
                throw .databaseUnavailable
            }
            if !poisoned.withLock({ $0.isDisjoint(with: events.map(\.event.id)) }) {
                throw .refusedByDatabase(DatabaseRefusal(code: .databaseRefused, message: "poisoned"))
            }
            transactions.withLock { $0 += 1 }
            return stored.withLock { stored in
                events.map { record in
                    if stored.contains(record.event.id) { return false }
                    stored.append(record.event.id)
                    return true
                }
            }
        }
    }

    private let logger = Logger(minimumLevel: .error)

    private func batch(events count: Int) -> SpooledBatch {
        SpooledBatch(spooledAt: .now, events: (0..<count).map { _ in
            EventRecord(appID: 1, event: Event(id: UUID(), type: .impression, channel: .banner, time: .now,
                                                userID: "u", source: .campaign("c")), receivedAt: .now)
        }, rejections: [])
    }

    private func setUp(_ storage: InMemorySpoolStorage, segmentBytes: Int = 1 << 20, chunkEvents: Int = 10)
        throws -> (SpoolWriter, SpoolReplayer, FakeDatabase, IngestMetrics) {
        let metrics = IngestMetrics()
        let spool = try SpoolWriter(storage: storage, maxBytes: 1 << 24, segmentBytes: segmentBytes, metrics: metrics, logger: logger)
        let database = FakeDatabase()
        let replayer = SpoolReplayer(spool: spool, sink: database, chunkEvents: chunkEvents, retryInterval: .milliseconds(1),
                                     metrics: metrics, logger: logger)
        return (spool, replayer, database, metrics)
    }

    private func drain(_ spool: SpoolWriter, _ replayer: SpoolReplayer) {
        while let segment = spool.oldestSegment() {
            #expect(replayer.replay(segment))
        }
    }

    @Test("Segments replay oldest first, in bounded transactions, and are deleted after their commit")
    func replaysOldestFirst() throws {
        let storage = InMemorySpoolStorage()
        let (spool, replayer, database, metrics) = try setUp(storage, segmentBytes: 2000, chunkEvents: 10)
        let batches = (0..<20).map { _ in batch(events: 4) }
        for batch in batches {
            try spool.append(batch)
        }
        #expect(try storage.segments().count > 1)
        drain(spool, replayer)
        #expect(database.stored.withLock { $0 } == batches.flatMap { $0.events.map(\.event.id) })
        #expect(database.transactions.withLock { $0 } >= 8, "chunks of about 10 events, not one transaction")
        #expect(try storage.segments().isEmpty)
        #expect(spool.snapshot.isEmpty)
        #expect(metrics.render().contains("cardinal_spool_replayed_events_total 80"))
    }

    @Test("While the database is down the segment stays; replayed later, every event is stored once")
    func databaseDownKeepsSegment() throws {
        let storage = InMemorySpoolStorage()
        let (spool, replayer, database, _) = try setUp(storage, chunkEvents: 4)
        let batches = (0..<6).map { _ in batch(events: 2) }
        for batch in batches {
            try spool.append(batch)
        }
        database.isDown.store(true, ordering: .relaxed)
        #expect(!replayer.replay(try #require(spool.oldestSegment())))
        #expect(try storage.segments() == [1])
        database.isDown.store(false, ordering: .relaxed)
        drain(spool, replayer)
        #expect(database.stored.withLock { $0 } == batches.flatMap { $0.events.map(\.event.id) })
    }

    @Test("A corrupt record in the middle is quarantined and counted, and the records around it replay")
    func corruptMiddleIsQuarantined() throws {
        let batches = (0..<3).map { _ in batch(events: 2) }
        let frames = batches.map { SpoolSegmentFormat.frame($0.encoded()) }
        var corrupted = frames[1]
        corrupted[30] ^= 0xFF
        let storage = InMemorySpoolStorage(segments: [1: frames[0] + corrupted + frames[2]])
        let (spool, replayer, database, metrics) = try setUp(storage)
        drain(spool, replayer)
        #expect(database.stored.withLock { $0 } == (batches[0].events + batches[2].events).map(\.event.id))
        #expect(storage.files.withLock { $0.quarantined } == ["1@\(frames[0].count)": corrupted])
        #expect(metrics.render().contains("cardinal_spool_quarantined_records_total 1"))
        #expect(try storage.segments().isEmpty)
    }

    @Test("A record the database refuses even alone is quarantined; the others of its chunk are stored")
    func refusedRecordIsQuarantined() throws {
        let storage = InMemorySpoolStorage()
        let (spool, replayer, database, _) = try setUp(storage, chunkEvents: 100)
        let batches = (0..<3).map { _ in batch(events: 2) }
        for batch in batches {
            try spool.append(batch)
        }
        database.poisoned.withLock { $0 = [batches[1].events[0].event.id] }
        drain(spool, replayer)
        #expect(database.stored.withLock { $0 } == (batches[0].events + batches[2].events).map(\.event.id))
        #expect(storage.files.withLock { $0.quarantined.count } == 1)
    }
}
