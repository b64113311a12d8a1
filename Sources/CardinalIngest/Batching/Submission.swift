import CardinalCore
import CardinalStore

/// The events of one request, waiting to be written in a batch. A request is never split across batches,
/// so that its answer comes from exactly one commit.
///
/// When the database refuses the data of a batch, the batch is bisected (`RefusalBisection`) and the
/// submission's events may be committed in several transactions; it is answered once all have committed.
struct Submission: BatchItem, Sendable {
    let events: [EventRecord]
    let rejections: [RejectionRecord]
    /// The id of the request, for the rejection of an event the database refuses.
    let requestID: String
    /// For each event, its 0-based position in the request.
    let eventIndices: [Int]
    /// After this instant the request is answered 503 rather than written: the client has likely given up.
    let deadline: ContinuousClock.Instant
    /// Called exactly once, from a writer thread, with what became of the submission.
    let complete: @Sendable (SubmissionOutcome) -> Void

    /// How much of a batch's capacity the submission uses; a request with only rejections still needs a commit.
    var weight: Int { max(1, events.count + rejections.count) }
}

extension Submission: BisectableItem {
    /// A refused event's rejection names its position in the request.
    func requestIndex(ofEventAt position: Int) -> Int { eventIndices[position] }
}

/// What became of a submission (or of a spooled record replayed the same way).
enum SubmissionOutcome: Sendable {
    /// Committed: for each event not in `refused`, in order, whether it was stored now (`false`: a duplicate
    /// of a stored event); `refused`: the events the database refused, stored as rejections instead.
    case written(inserted: [Bool], refused: [EventRejection])
    /// Not written; nothing of it is stored.
    case notWritten(WriteFailure)
}

/// Why a submission was not written. Each maps to an HTTP status in `IngestResponse`.
enum WriteFailure: Error, Sendable, Equatable {
    case databaseUnavailable
    /// The batch committed on the primary, but its wait for the synchronous standbys was cancelled (a standby
    /// down, the session cancelled): not durable as a `200` promises. The client retries; the events
    /// then come back as duplicates. Not spooled: a replayed batch of duplicates commits without waiting for
    /// a standby, so the spool would drop it as replayed while it is still unreplicated.
    case notReplicated
    case queueFull
    /// The bodies of requests in flight already hold the daemon's body memory (`--max-body-memory`); nothing
    /// of this one was read or kept.
    case outOfMemoryBudget
    case timedOut
    case shuttingDown
    /// The database refused the data itself (a gap in validation): the batch is bisected to find the events
    /// at fault, which are rejected with the refusal's code and message.
    case refusedByDatabase(DatabaseRefusal)
    /// Any other error of the database (a missing privilege, a schema out of date); the message goes to the
    /// log only.
    case databaseFailed(String)
}
