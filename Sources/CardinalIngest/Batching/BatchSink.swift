import CardinalStore

/// Where batches are written.
///
/// Today the only sink is PostgreSQL (`DatabaseBatchSink`). This protocol is the seam for the planned disk
/// spool: a sink that appends batches to a local fsync'ed log while the database is down and replays them
/// later, so the daemon can keep acknowledging during an outage. The batcher neither knows nor cares.
protocol BatchSink: AnyObject {
    /// Durably stores one batch.
    /// - Returns: for each event, whether it was stored now (`false`: duplicate of a stored event).
    /// - Throws: `WriteFailure`; then nothing of the batch was stored.
    func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool]
}
