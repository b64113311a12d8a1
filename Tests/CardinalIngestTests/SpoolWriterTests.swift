import CardinalCore
import CardinalLogging
import CardinalStore
import Foundation
import Testing

@testable import CardinalIngest

@Suite struct SpoolWriterTests {
    private let logger = Logger(minimumLevel: .error)

    private func batch(events count: Int) -> SpooledBatch {
        SpooledBatch(spooledAt: .now, events: (0..<count).map { _ in
            EventRecord(appID: 1, event: Event(id: UUID(), type: .impression, channel: .banner, time: .now,
                                                userID: "u", source: .campaign("c")), receivedAt: .now)
        }, rejections: [])
    }

    private func writer(_ storage: InMemorySpoolStorage, maxBytes: Int = 1 << 20, segmentBytes: Int = 1 << 20,
                        metrics: IngestMetrics = IngestMetrics()) throws -> SpoolWriter {
        try SpoolWriter(storage: storage, maxBytes: maxBytes, segmentBytes: segmentBytes, metrics: metrics, logger: logger)
    }

    @Test("Appended batches are counted and read back in order from the segment")
    func appendAndAccount() throws {
        let storage = InMemorySpoolStorage()
        let spool = try writer(storage)
        let batches = [batch(events: 2), batch(events: 3)]
        for batch in batches {
            try spool.append(batch)
        }
        #expect(spool.snapshot.records == 2)
        #expect(spool.snapshot.events == 5)
        #expect(spool.snapshot.oldestSpooledAt == batches[0].spooledAt)
        let scan = SpoolSegmentFormat.scan(try storage.read(segment: 1))
        #expect(try scan.records.map { try SpooledBatch(decoding: $0.payload).events.map(\.event.id) }
                == batches.map { $0.events.map(\.event.id) })
    }

    @Test("A segment past the rotation size is sealed and the next append starts a new one")
    func rotation() throws {
        let storage = InMemorySpoolStorage()
        let spool = try writer(storage, segmentBytes: 1000)
        for _ in 0..<10 {
            try spool.append(batch(events: 3))
        }
        let segments = try storage.segments()
        #expect(segments.count > 1)
        #expect(segments == Array(1...UInt64(segments.count)))
        #expect(try segments.dropLast().allSatisfy { try storage.read(segment: $0).count >= 1000 })
    }

    @Test("Past the size cap an append fails with .full, stores nothing, and the spool takes batches again once drained")
    func sizeCap() throws {
        let storage = InMemorySpoolStorage()
        let metrics = IngestMetrics()
        let spool = try writer(storage, maxBytes: 2000, metrics: metrics)
        var appended = 0
        while (try? spool.append(batch(events: 3))) != nil {
            appended += 1
        }
        #expect(throws: SpoolError.full) { try spool.append(batch(events: 3)) }
        #expect(spool.snapshot.isFull)
        #expect(spool.snapshot.records == appended)
        #expect(spool.snapshot.bytes <= 2000)
        #expect(metrics.render().contains("cardinal_spool_full 1"))
        try spool.remove(try #require(spool.oldestSegment()))
        try spool.append(batch(events: 3))
        #expect(!spool.snapshot.isFull)
    }

    @Test("A full disk (ENOSPC part-way through a write) leaves no partial record behind")
    func diskFull() throws {
        let storage = InMemorySpoolStorage()
        let spool = try writer(storage)
        try spool.append(batch(events: 1))
        let before = try storage.read(segment: 1)
        storage.files.withLock { $0.freeBytes = 50 }
        #expect(throws: SpoolError.noSpace) { try spool.append(batch(events: 5)) }
        #expect(try storage.read(segment: 1) == before)
        #expect(spool.snapshot.records == 1)
        storage.files.withLock { $0.freeBytes = .max }
        try spool.append(batch(events: 1))
        #expect(spool.snapshot.records == 2)
        #expect(try storage.segments().flatMap { SpoolSegmentFormat.scan(try storage.read(segment: $0)).records }.count == 2)
    }

    @Test("On start, a torn record at a segment's end is truncated and the records before it are kept")
    func recoveryTruncatesTornTail() throws {
        let records = [batch(events: 2), batch(events: 4)].map { SpoolSegmentFormat.frame($0.encoded()) }
        let torn = Array(SpoolSegmentFormat.frame(batch(events: 3).encoded()).prefix(40))
        let storage = InMemorySpoolStorage(segments: [7: records[0] + records[1] + torn])
        let spool = try writer(storage)
        #expect(try storage.read(segment: 7) == records[0] + records[1])
        #expect(spool.snapshot.records == 2)
        #expect(spool.snapshot.events == 6)
        try spool.append(batch(events: 1))
        #expect(try storage.segments() == [7, 8], "new records go to a new segment after the highest one")
    }

    @Test("On start, a segment holding only a torn record is deleted")
    func recoveryDeletesEmptySegment() throws {
        let storage = InMemorySpoolStorage(segments: [3: Array(SpoolSegmentFormat.frame(batch(events: 1).encoded()).prefix(7))])
        let spool = try writer(storage)
        #expect(try storage.segments().isEmpty)
        #expect(spool.snapshot.isEmpty)
    }
}
