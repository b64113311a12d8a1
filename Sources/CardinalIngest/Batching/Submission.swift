import CardinalStore

/// The events of one request, waiting to be written in a batch. A request is never split across batches,
/// so that its answer comes from exactly one commit.
struct Submission: BatchItem, Sendable {
    let events: [EventRecord]
    let rejections: [RejectionRecord]
    /// After this instant the request is answered 503 rather than written: the client has likely given up.
    let deadline: ContinuousClock.Instant
    /// Called exactly once, from a writer thread, with what became of the submission.
    let complete: @Sendable (SubmissionOutcome) -> Void

    /// How much of a batch's capacity the submission uses; a request with only rejections still needs a commit.
    var weight: Int { max(1, events.count + rejections.count) }
}

/// What became of a submission.
enum SubmissionOutcome: Sendable {
    /// Committed: for each event, whether it was stored now (`false`: a duplicate of a stored event).
    case written(inserted: [Bool])
    /// Not written; nothing of it is stored.
    case notWritten(WriteFailure)
}

/// Why a submission was not written. Each maps to an HTTP status in `IngestResponse`.
enum WriteFailure: Error, Sendable, Equatable {
    case databaseUnavailable
    case queueFull
    case timedOut
    case shuttingDown
    /// The database refused the data itself (a bug in validation); the message goes to the log only.
    case refusedByDatabase(String)
}
