/// Decides how submissions from concurrent requests are grouped into write batches, with no threads, locks
/// or clocks of its own: callers pass the time in and carry out the returned action. That keeps every
/// decision testable without a database or sleeps (the pattern of postgres-nio's `PoolStateMachine`).
///
/// A batch closes when it holds `maxBatchEvents`, or when its oldest submission has waited `maxDelay` —
/// whichever comes first. Meanwhile other writers commit, which is what turns many small requests into one
/// fsync ("group commit").
struct BatchingStateMachine<Item: BatchItem> {
    struct Limits {
        var maxBatchEvents: Int
        var maxDelay: Duration
        /// Events that may wait at most; beyond it requests are turned away with 503 to shed load early.
        var maxQueuedEvents: Int
    }

    enum SubmitAction: Equatable {
        case queued
        /// Wake a writer: a batch is ready or a waiting writer's deadline changed.
        case queuedAndSignal
        case rejectQueueFull
        case rejectShuttingDown
    }

    enum TakeAction {
        case write([Item])
        case waitUntil(ContinuousClock.Instant)
        case waitForWork
        case stop
    }

    private let limits: Limits
    private var pending: [Item] = []
    private var pendingHead = 0
    private var queuedWeight = 0
    private var isShuttingDown = false
    private var arrivals: [ContinuousClock.Instant] = []

    init(limits: Limits) {
        self.limits = limits
    }

    /// Events waiting, for the queue-depth gauge.
    var queuedEvents: Int { queuedWeight }

    mutating func submit(_ submission: Item, now: ContinuousClock.Instant) -> SubmitAction {
        if isShuttingDown {
            return .rejectShuttingDown
        }
        // The first submission into an empty queue is held to the limit too: otherwise one request of any
        // size would always be taken.
        if queuedWeight + submission.weight > limits.maxQueuedEvents {
            return .rejectQueueFull
        }
        let wasEmpty = queuedWeight == 0
        pending.append(submission)
        arrivals.append(now)
        queuedWeight += submission.weight
        return wasEmpty || queuedWeight >= limits.maxBatchEvents ? .queuedAndSignal : .queued
    }

    /// What a free writer should do now. Submissions past their deadline are handed back in `expired`, to be
    /// answered 503 without being written.
    mutating func takeBatch(now: ContinuousClock.Instant, expired: inout [Item]) -> TakeAction {
        dropExpired(now: now, into: &expired)
        guard pendingHead < pending.count else {
            return isShuttingDown ? .stop : .waitForWork
        }
        let closesAt = arrivals[pendingHead] + limits.maxDelay
        if queuedWeight < limits.maxBatchEvents, now < closesAt, !isShuttingDown {
            return .waitUntil(closesAt)
        }
        var batch: [Item] = []
        var weight = 0
        while pendingHead < pending.count {
            let next = pending[pendingHead]
            if !batch.isEmpty, weight + next.weight > limits.maxBatchEvents {
                break
            }
            batch.append(next)
            weight += next.weight
            pendingHead += 1
        }
        queuedWeight -= weight
        compact()
        return .write(batch)
    }

    /// Stops taking new submissions; writers drain what is queued, then are told to stop.
    mutating func shutDown() {
        isShuttingDown = true
    }

    private mutating func dropExpired(now: ContinuousClock.Instant, into expired: inout [Item]) {
        while pendingHead < pending.count, pending[pendingHead].deadline <= now {
            expired.append(pending[pendingHead])
            queuedWeight -= pending[pendingHead].weight
            pendingHead += 1
        }
        compact()
    }

    /// Reclaims the consumed prefix once it dominates, keeping `submit` and `takeBatch` amortised O(1).
    private mutating func compact() {
        if pendingHead > 64, pendingHead * 2 > pending.count {
            pending.removeFirst(pendingHead)
            arrivals.removeFirst(pendingHead)
            pendingHead = 0
        } else if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            arrivals.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
    }
}

/// What the batcher needs to know of a queued item.
protocol BatchItem {
    /// How much of a batch's capacity the item uses.
    var weight: Int { get }
    /// After this instant the item is handed back as expired instead of written.
    var deadline: ContinuousClock.Instant { get }
}
