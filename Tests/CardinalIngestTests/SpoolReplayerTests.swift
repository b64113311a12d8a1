import CardinalCore
import CardinalLogging
import CardinalStore
import Foundation
import Synchronization
import Testing

@testable import CardinalIngest

@Suite struct SpoolReplayerTests {
    /// A database stand-in: stores event ids and rejections, refuses batches holding a poisoned event id or a
    /// rejection of a poisoned request id, or is down.
    final class FakeDatabase: BatchSink, Sendable {
        let stored = Mutex<[UUID]>([])
        let storedRejections = Mutex<[RejectionRecord]>([])
        let transactions = Mutex(0)
        let isDown = Atomic(false)
        let poisoned = Mutex<Set<UUID>>([])
        let poisonedRequests = Mutex<Set<String>>([])

        func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
            if isDown.load(ordering: .relaxed) {
                throw .databaseUnavailable
            }
            if !poisoned.withLock({ $0.isDisjoint(with: events.map(\.event.id)) })
                || !poisonedRequests.withLock({ $0.isDisjoint(with: rejections.map(\.requestID)) }) {
                throw .refusedByDatabase(DatabaseRefusal(code: .databaseRefused, message: "poisoned"))
            }
            transactions.withLock { $0 += 1 }
            storedRejections.withLock { $0 += rejections }
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

    @Test("An event the database refuses at replay is stored as a rejection naming its spool record; the rest is stored")
    func refusedEventBecomesRejection() throws {
        let batches = (0..<3).map { _ in batch(events: 2) }
        let frames = batches.map { SpoolSegmentFormat.frame($0.encoded()) }
        let poison = batches[1].events[1].event.id
        var requestIDs: [[String]] = []
        // The same segment replayed twice, as after a crash, names the rejection the same way both times.
        for _ in 0..<2 {
            let storage = InMemorySpoolStorage(segments: [1: frames.joined().map { $0 }])
            let (spool, replayer, database, metrics) = try setUp(storage, chunkEvents: 100)
            database.poisoned.withLock { $0 = [poison] }
            drain(spool, replayer)
            #expect(database.stored.withLock { $0 } == batches.flatMap(\.events).map(\.event.id).filter { $0 != poison })
            let rejections = database.storedRejections.withLock { $0 }
            #expect(rejections.map(\.rejection.id) == [poison.uuidString.lowercased()])
            #expect(rejections.map(\.rejection.index) == [1], "its position in the record")
            #expect(rejections.map(\.rejection.code) == [.databaseRefused])
            #expect(storage.files.withLock { $0.quarantined.isEmpty })
            #expect(metrics.render().contains("cardinal_spool_replayed_events_total 6"))
            requestIDs.append(rejections.map(\.requestID))
        }
        let microseconds = Int64((batches[1].spooledAt.timeIntervalSince1970 * 1_000_000).rounded())
        #expect(requestIDs[0] == ["spool-1-\(frames[0].count)-\(microseconds)"])
        #expect(requestIDs[1] == requestIDs[0])
    }

    @Test("A record whose rejections the database refuses is quarantined; the others of its chunk are stored")
    func recordWithRefusedRejectionsIsQuarantined() throws {
        let storage = InMemorySpoolStorage()
        let (spool, replayer, database, metrics) = try setUp(storage, chunkEvents: 100)
        var batches = (0..<3).map { _ in batch(events: 2) }
        for (index, requestID) in [(1, "r1"), (2, "r2")] {
            batches[index].rejections = [RejectionRecord(
                appID: 1, requestID: requestID, receivedAt: .now,
                rejection: EventRejection(index: 2, id: nil, code: .invalidJSON, message: "not JSON", rawJSON: "{"))]
        }
        for batch in batches {
            try spool.append(batch)
        }
        database.poisonedRequests.withLock { $0 = ["r1"] }
        drain(spool, replayer)
        #expect(Set(database.stored.withLock { $0 }) == Set(batches.flatMap(\.events).map(\.event.id)))
        #expect(database.storedRejections.withLock { $0.map(\.requestID) } == ["r2"], "the other record's rejection")
        #expect(storage.files.withLock { $0.quarantined.count } == 1)
        #expect(metrics.render().contains("cardinal_spool_quarantined_records_total 1"))
    }
}
