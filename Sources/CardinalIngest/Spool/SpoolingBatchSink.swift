import CardinalLogging
import CardinalStore
import Foundation

/// A `BatchSink` that writes to the database and, when the database is unavailable or the commit has not
/// returned within `commitTimeout`, appends the batch to the disk spool instead, so that clients keep getting
/// 200 through an outage or a hung server.
///
/// A spooled batch is durable (fsync'ed) but not yet in the database, so whether each event is new or a
/// duplicate of a stored one is unknown: every spooled event is answered `accepted`, and the replay decides
/// (a duplicate then stores nothing). Rejected events travel with their batch and are stored at replay too.
/// When the spool cannot take the batch (past `--spool-max-bytes`, disk full), the answer is the 503 the
/// daemon gave before it had a spool.
final class SpoolingBatchSink: BatchSink {
    private let database: TimeBoundWrites
    private let commitTimeout: Duration
    private let spool: SpoolWriter
    private let metrics: IngestMetrics
    private let logger: Logger

    /// - Parameters:
    ///   - database: the sink tried first; from now on used by a helper thread of this sink alone.
    ///   - commitTimeout: how long a batch may wait for its commit before it is spooled instead (well inside
    ///     the request timeout, so that the answer still reaches the client).
    init(database: any BatchSink & Sendable, commitTimeout: Duration, spool: SpoolWriter, metrics: IngestMetrics,
         logger: Logger, name: String) {
        self.database = TimeBoundWrites(sink: database, name: name)
        self.commitTimeout = commitTimeout
        self.spool = spool
        self.metrics = metrics
        self.logger = logger
    }

    deinit {
        database.stop()
    }

    func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
        switch database.write(events: events, rejections: rejections, deadline: .now + commitTimeout) {
        case let .finished(.success(inserted)):
            return inserted
        case .finished(.failure(.databaseUnavailable)):
            break
        case let .finished(.failure(failure)):
            throw failure
        case .timedOut:
            logger.log(.warning, "commit did not return in time; batch spooled", [
                "spool.commit_timeout": "\(commitTimeout)", "spool.events": String(events.count),
            ])
        case .busy:
            break
        }
        do {
            try spool.append(SpooledBatch(spooledAt: .now, events: events, rejections: rejections))
        } catch {
            throw .databaseUnavailable
        }
        metrics.recordSpooled(events: events.count + rejections.count)
        return Array(repeating: true, count: events.count)
    }
}

// Like the database sink it wraps, a spooling sink is handed to one writer thread and used by it alone; the
// spool it shares with the other writers is `Sendable` and locks itself.
extension SpoolingBatchSink: @unchecked Sendable {}
