import CardinalLogging
import Foundation
import Synchronization

/// Appends batches to the spool's segments, durably, and keeps the account of what the spool holds.
///
/// Every append is `fsync`'ed before it returns, so a batch it took may be answered 200. The active segment is
/// sealed when it reaches `segmentBytes` (a new one starts with the next append) or when the replayer asks for
/// it; sealed segments never change again except to be deleted after replay. Shared by every writer thread
/// (appends are serialised by one lock, which also serialises their fsyncs) and the replayer.
///
/// On start, every segment left by an earlier run is checked: a record cut short at the tail by a crash
/// (length or CRC wrong, nothing intact after it) is truncated away and logged. It was never acknowledged,
/// because its fsync had not returned. Damage in the middle is left for the replayer to quarantine.
final class SpoolWriter: Sendable {
    /// What the spool holds, for metrics and `/readyz`.
    struct Snapshot: Sendable, Equatable {
        var bytes = 0
        var records = 0
        var events = 0
        /// When the oldest record still spooled was written.
        var oldestSpooledAt: Date?
        /// Whether the last append was refused for the cap or a full disk.
        var isFull = false

        var isEmpty: Bool { records == 0 && bytes == 0 }
    }

    /// A segment as the spool accounts for it.
    struct Segment: Sendable, Equatable {
        let sequence: UInt64
        var bytes = 0
        var records = 0
        var events = 0
        var firstSpooledAt: Date?
    }

    private struct State {
        var segments: [Segment] = []
        var nextSequence: UInt64 = 1
        /// The segment being appended to: always the last of `segments` when set.
        var active: (any SpoolSegmentFile)?
        var isFull = false

        var snapshot: Snapshot {
            Snapshot(bytes: segments.reduce(0) { $0 + $1.bytes }, records: segments.reduce(0) { $0 + $1.records },
                     events: segments.reduce(0) { $0 + $1.events }, oldestSpooledAt: segments.first?.firstSpooledAt,
                     isFull: isFull)
        }
    }

    let storage: any SpoolStorage
    private let maxBytes: Int
    private let segmentBytes: Int
    private let metrics: IngestMetrics
    private let logger: Logger
    private let state: Mutex<State>

    /// Opens the spool in `storage`, repairing torn tails left by a crash.
    /// - Parameters:
    ///   - maxBytes: the spool's size at most; appends beyond it fail with `.full`.
    ///   - segmentBytes: size at which a segment is sealed and a new one started.
    /// - Throws: `SpoolError` when the segments cannot be listed, read or repaired.
    init(storage: any SpoolStorage, maxBytes: Int, segmentBytes: Int, metrics: IngestMetrics, logger: Logger) throws(SpoolError) {
        self.storage = storage
        self.maxBytes = maxBytes
        self.segmentBytes = segmentBytes
        self.metrics = metrics
        self.logger = logger
        var state = State()
        for sequence in try storage.segments() {
            state.nextSequence = max(state.nextSequence, sequence + 1)
            if let segment = try Self.recover(sequence, storage: storage, logger: logger) {
                state.segments.append(segment)
            }
        }
        let snapshot = state.snapshot
        self.state = Mutex(state)
        metrics.setSpool(snapshot)
        if !snapshot.isEmpty {
            logger.log(.info, "spool holds batches from an earlier run; replaying them when the database is reachable", [
                "spool.records": String(snapshot.records), "spool.bytes": String(snapshot.bytes),
            ])
        }
    }

    /// Checks one segment left by an earlier run, truncates a torn tail, and accounts for it; an empty segment
    /// is deleted.
    private static func recover(_ sequence: UInt64, storage: any SpoolStorage, logger: Logger) throws(SpoolError) -> Segment? {
        let bytes = try storage.read(segment: sequence)
        let scan = SpoolSegmentFormat.scan(bytes)
        if scan.validEnd < bytes.count {
            try storage.truncate(segment: sequence, toBytes: scan.validEnd)
            logger.log(.warning, "spool: torn record at the end of a segment truncated (a write cut short by a crash, never acknowledged)", [
                "spool.segment": String(sequence), "spool.offset": String(scan.validEnd),
                "spool.bytes_dropped": String(bytes.count - scan.validEnd),
            ])
        }
        if !scan.corrupt.isEmpty {
            logger.log(.warning, "spool: corrupt records in the middle of a segment; they will be quarantined at replay", [
                "spool.segment": String(sequence), "spool.corrupt_stretches": String(scan.corrupt.count),
            ])
        }
        guard scan.validEnd > 0 else {
            try storage.remove(segment: sequence)
            return nil
        }
        let headers = scan.records.compactMap { SpooledBatch.header(of: $0.payload) }
        return Segment(sequence: sequence, bytes: scan.validEnd, records: scan.records.count,
                       events: headers.reduce(0) { $0 + $1.events }, firstSpooledAt: headers.first?.spooledAt)
    }

    /// Appends one batch and makes it durable.
    /// - Throws: `.full` past the cap, `.noSpace` when the disk is full, `.io` otherwise; then nothing of the
    ///   batch is in the spool.
    func append(_ batch: SpooledBatch) throws(SpoolError) {
        let record = SpoolSegmentFormat.frame(batch.encoded())
        let (wasFull, result) = state.withLock { state -> (Bool, Result<Void, SpoolError>) in
            let wasFull = state.isFull
            let result = Result { () throws(SpoolError) in try append(record, of: batch, to: &state) }
            if case let .failure(error) = result {
                state.isFull = error == .full || error == .noSpace
            } else {
                state.isFull = false
            }
            metrics.setSpool(state.snapshot)
            return (wasFull, result)
        }
        switch result {
        case .success where wasFull:
            logger.log(.info, "spool: taking batches again")
        case .success:
            break
        case let .failure(error):
            // Logged when it starts, not for every refused batch of a long outage; I/O errors every time.
            if !wasFull || error != .full && error != .noSpace {
                logger.log(.error, "spool: cannot take batches; answering 503 until there is room",
                           ["spool.error": error.description])
            }
            throw error
        }
    }

    private func append(_ record: [UInt8], of batch: SpooledBatch, to state: inout State) throws(SpoolError) {
        guard state.snapshot.bytes + record.count <= maxBytes else {
            throw .full
        }
        if state.active == nil || state.segments.last!.bytes >= segmentBytes {
            let sequence = state.nextSequence
            state.active = nil
            state.active = try storage.create(segment: sequence)
            state.nextSequence += 1
            state.segments.append(Segment(sequence: sequence))
        }
        let index = state.segments.count - 1
        do {
            try state.active!.appendDurably(record)
        } catch {
            // Undo a partial write; failing that, seal the segment so nothing is appended after the torn bytes,
            // which the replayer then recognises as a torn tail.
            try? state.active!.truncate(toBytes: state.segments[index].bytes)
            state.active = nil
            if state.segments[index].bytes == 0 {
                try? storage.remove(segment: state.segments[index].sequence)
                state.segments.remove(at: index)
            }
            throw error
        }
        state.segments[index].bytes += record.count
        state.segments[index].records += 1
        state.segments[index].events += batch.events.count
        if state.segments[index].firstSpooledAt == nil {
            state.segments[index].firstSpooledAt = batch.spooledAt
        }
    }

    /// The oldest segment, for the replayer; the active one is sealed first when it is the only one left.
    func oldestSegment() -> Segment? {
        state.withLock { state in
            guard let first = state.segments.first else {
                return nil
            }
            if state.segments.count == 1 {
                state.active = nil
            }
            return first
        }
    }

    /// Deletes a replayed segment.
    func remove(_ segment: Segment) throws(SpoolError) {
        try storage.remove(segment: segment.sequence)
        state.withLock { state in
            state.segments.removeAll { $0.sequence == segment.sequence }
            metrics.setSpool(state.snapshot)
        }
    }

    /// What the spool holds now.
    var snapshot: Snapshot {
        state.withLock { $0.snapshot }
    }
}
