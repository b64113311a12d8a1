import CardinalCore
import CardinalLogging
import CardinalStore
import Foundation
import Synchronization

/// Drains the spool into the database on a thread and a connection of its own, oldest segment first, while
/// live batches keep flowing through the writer threads.
///
/// A segment's records are written in transactions of about `chunkEvents` events through an ordinary
/// `BatchSink` (the idempotent `EventWriter`: `INSERT … ON CONFLICT DO NOTHING`), and the segment is deleted only
/// after its last chunk committed. A crash in between replays the segment again from its start: its events come
/// back as duplicates and are stored once. When the database refuses a chunk's data, the chunk is bisected as
/// a live batch is (`RefusalBisection`): each event it refuses is stored as a rejection (`ReplayedRecord` says
/// under which request id) and the others are stored. Damaged records (CRC or length wrong with intact ones
/// after them), records that do not decode, and records whose rejections the database refuses are copied to
/// `quarantine/`, counted and logged; the rest of the segment replays.
final class SpoolReplayer: Sendable {
    private let spool: SpoolWriter
    private let sink: any BatchSink & Sendable
    private let chunkEvents: Int
    private let retryInterval: Duration
    private let metrics: IngestMetrics
    private let logger: Logger
    private let stopping = Atomic(false)
    /// Signalled by ``stop()``, so that a pause between retries ends at once instead of at its next poll.
    private let stopSignal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Records of the oldest segment already committed by this process: a failure part-way resumes after them.
    private let progress = Mutex<(sequence: UInt64, records: Int)?>(nil)

    /// - Parameters:
    ///   - sink: used by the replayer's thread alone, e.g. a `DatabaseBatchSink` with its own connection.
    ///   - chunkEvents: events (and rejections) per transaction, about; a record is never split.
    ///   - retryInterval: pause after the database refused a chunk for being unavailable.
    init(spool: SpoolWriter, sink: any BatchSink & Sendable, chunkEvents: Int, retryInterval: Duration,
         metrics: IngestMetrics, logger: Logger) {
        self.spool = spool
        self.sink = sink
        self.chunkEvents = chunkEvents
        self.retryInterval = retryInterval
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts the replay thread.
    func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                guard !spool.snapshot.isEmpty else {
                    pause(.milliseconds(100))
                    continue
                }
                // An empty transaction first: while the database is down, segments are neither read nor sealed.
                guard (try? sink.write(events: [], rejections: [])) != nil, let segment = spool.oldestSegment() else {
                    pause(retryInterval)
                    continue
                }
                if !replay(segment) {
                    pause(retryInterval)
                }
            }
            finished.signal()
        }
        thread.name = "cardinal-spool-replay"
        thread.start()
    }

    /// Stops after the chunk being written, and waits for the thread. What is left stays spooled for the next
    /// start.
    func stop() {
        stopping.store(true, ordering: .releasing)
        stopSignal.signal()
        finished.wait()
    }

    /// Waits `duration`, or until ``stop()``.
    private func pause(_ duration: Duration) {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        if stopSignal.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success {
            // Left signalled for the loop's check and any later pause: the replayer is stopping for good.
            stopSignal.signal()
        }
    }

    /// Replays one segment and deletes it. Returns `false` when it must be tried again later.
    func replay(_ segment: SpoolWriter.Segment) -> Bool {
        let bytes: [UInt8]
        do {
            bytes = try spool.storage.read(segment: segment.sequence)
        } catch {
            logger.log(.error, "spool: cannot read a segment", ["spool.segment": String(segment.sequence), "spool.error": error.description])
            return false
        }
        let scan = SpoolSegmentFormat.scan(bytes)
        let done = progress.withLock { $0?.sequence == segment.sequence ? $0!.records : 0 }
        if done == 0 {
            for range in scan.corrupt {
                quarantine(Array(bytes[range]), segment: segment, offset: range.lowerBound, reason: "CRC or length does not match")
            }
            if scan.validEnd < bytes.count {
                logger.log(.warning, "spool: torn record at the end of a segment skipped (never acknowledged)", [
                    "spool.segment": String(segment.sequence), "spool.offset": String(scan.validEnd),
                ])
            }
        }
        var chunk: [ReplayedRecord] = []
        var chunkWeight = 0
        var committed = done
        for (index, record) in scan.records.enumerated() where index >= done {
            do {
                let batch = try SpooledBatch(decoding: record.payload)
                chunk.append(ReplayedRecord(batch: batch, segment: segment.sequence, offset: record.offset))
                chunkWeight += batch.events.count + batch.rejections.count
            } catch {
                quarantine(Array(bytes[record.offset..<record.payload.endIndex]), segment: segment,
                           offset: record.offset, reason: error.description)
            }
            if chunkWeight >= chunkEvents || index == scan.records.count - 1 {
                guard write(chunk, bytes: bytes, segment: segment) else {
                    progress.withLock { $0 = (segment.sequence, committed) }
                    return false
                }
                committed = index + 1
                chunk.removeAll()
                chunkWeight = 0
                if stopping.load(ordering: .acquiring) {
                    progress.withLock { $0 = (segment.sequence, committed) }
                    return true
                }
            }
        }
        do {
            try spool.remove(segment)
        } catch {
            logger.log(.error, "spool: cannot delete a replayed segment", ["spool.segment": String(segment.sequence), "spool.error": error.description])
            return false
        }
        progress.withLock { $0 = nil }
        logger.log(.info, "spool: segment replayed and deleted", [
            "spool.segment": String(segment.sequence), "spool.records": String(scan.records.count),
            "spool.events": String(segment.events),
        ])
        return true
    }

    /// Writes a chunk in one transaction, bisected when the database refuses its data, then each record whose
    /// rejections it refused alone, quarantining those it refuses alone. Returns `false` when the database is
    /// unavailable: the chunk is then written again later, and what of it committed comes back as duplicates.
    private func write(_ chunk: [ReplayedRecord], bytes: [UInt8], segment: SpoolWriter.Segment) -> Bool {
        guard !chunk.isEmpty else {
            return true
        }
        var written: [(record: ReplayedRecord, events: Int, refused: [EventRejection])] = []
        var refusedRecords: [(record: ReplayedRecord, refusal: DatabaseRefusal)] = []
        for (record, outcome) in zip(chunk, RefusalBisection(sink: sink).write(chunk)) {
            switch outcome {
            case let .written(inserted, refused): written.append((record, inserted.count + refused.count, refused))
            case let .notWritten(.refusedByDatabase(refusal)): refusedRecords.append((record, refusal))
            case .notWritten: return false
            }
        }
        for (record, events, refused) in written {
            metrics.recordReplayed(events: events)
            for rejection in refused {
                // The message names the SQLSTATE and constraint only, never the row.
                logger.log(.warning, "spool: database refused a replayed event; stored as a rejection", [
                    "ingest.request_id": record.requestID, "ingest.event_index": String(rejection.index),
                    "ingest.code": rejection.code.rawValue, "db.error": rejection.message,
                ])
            }
        }
        guard chunk.count > 1 else {
            for (record, refusal) in refusedRecords {
                let end = record.offset + SpoolSegmentFormat.headerSize
                    + Int(SpoolSegmentFormat.readUInt32(bytes, at: record.offset + 4))
                quarantine(Array(bytes[record.offset..<end]), segment: segment, offset: record.offset,
                           reason: "refused by the database: \(refusal)")
            }
            return true
        }
        // The rejections of a chunk are stored together, so one refused rejection fails them all: each such
        // record is written again alone (its stored events come back as duplicates).
        return refusedRecords.allSatisfy { write([$0.record], bytes: bytes, segment: segment) }
    }

    private func quarantine(_ bytes: [UInt8], segment: SpoolWriter.Segment, offset: Int, reason: String) {
        do {
            let path = try spool.storage.quarantine(bytes, segment: segment.sequence, offset: offset)
            metrics.recordQuarantined(records: 1)
            logger.log(.error, "spool: record moved to quarantine; the rest of the segment replays", [
                "spool.segment": String(segment.sequence), "spool.offset": String(offset),
                "spool.bytes": String(bytes.count), "spool.quarantine": path, "spool.reason": reason,
            ])
        } catch {
            metrics.recordQuarantined(records: 1)
            logger.log(.error, "spool: record could not be quarantined and is dropped", [
                "spool.segment": String(segment.sequence), "spool.offset": String(offset), "spool.error": error.description,
            ])
        }
    }
}
