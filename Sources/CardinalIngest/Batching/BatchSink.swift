import CardinalStore

/// Where batches are written.
///
/// PostgreSQL (`DatabaseBatchSink`), or the disk spool in front of it (`SpoolingBatchSink`), which appends a
/// batch to fsync'ed segment files when the database is down or slow and has `SpoolReplayer` write it later,
/// so that the daemon keeps acknowledging through an outage. The batcher neither knows nor cares.
protocol BatchSink: AnyObject {
    /// Durably stores one batch.
    /// - Returns: for each event, whether it was stored now (`false`: duplicate of a stored event).
    /// - Throws: `WriteFailure`; then nothing of the batch was stored.
    func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool]
}
