import CardinalStore
import Foundation

/// A `BatchSink` that writes to the database and, when the database is unavailable, appends the batch to the
/// disk spool instead, so that clients keep getting 200 through an outage.
///
/// A spooled batch is durable (fsync'ed) but not yet in the database, so whether each event is new or a
/// duplicate of a stored one is unknown: every spooled event is answered `accepted`, and the replay decides
/// (a duplicate then stores nothing). Rejected events travel with their batch and are stored at replay too.
/// When the spool cannot take the batch (past `--spool-max-bytes`, disk full), the answer is the 503 the
/// daemon gave before it had a spool.
final class SpoolingBatchSink: BatchSink {
    private let database: any BatchSink
    private let spool: SpoolWriter
    private let metrics: IngestMetrics

    /// - Parameter database: the sink tried first; used by this sink's writer thread alone.
    init(database: any BatchSink, spool: SpoolWriter, metrics: IngestMetrics) {
        self.database = database
        self.spool = spool
        self.metrics = metrics
    }

    func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
        do {
            return try database.write(events: events, rejections: rejections)
        } catch .databaseUnavailable {
            do {
                try spool.append(SpooledBatch(spooledAt: .now, events: events, rejections: rejections))
            } catch {
                throw .databaseUnavailable
            }
            metrics.recordSpooled(events: events.count + rejections.count)
            return Array(repeating: true, count: events.count)
        }
    }
}

// Like the database sink it wraps, a spooling sink is handed to one writer thread and used by it alone; the
// spool it shares with the other writers is `Sendable` and locks itself.
extension SpoolingBatchSink: @unchecked Sendable {}
