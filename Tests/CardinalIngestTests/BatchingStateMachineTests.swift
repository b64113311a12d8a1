import Testing

@testable import CardinalIngest

@Suite struct BatchingStateMachineTests {
    private let start = ContinuousClock.now
    private struct Item: BatchItem {
        let weight: Int
        let deadline: ContinuousClock.Instant
    }

    private let limits = BatchingStateMachine<Item>.Limits(
        maxBatchEvents: 10, maxDelay: .milliseconds(5), maxQueuedEvents: 25
    )

    private func submission(weight: Int, deadline: Duration = .seconds(10)) -> Item {
        Item(weight: weight, deadline: start + deadline)
    }

    @Test("A lone small submission waits for the batch delay before it is written")
    func loneSubmissionWaitsForDelay() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        #expect(machine.submit(submission(weight: 3), now: start) == .queuedAndSignal)
        var expired: [Item] = []
        guard case let .waitUntil(instant) = machine.takeBatch(now: start, expired: &expired) else {
            Issue.record("expected the writer to wait")
            return
        }
        #expect(instant == start + .milliseconds(5))
        guard case let .write(batch) = machine.takeBatch(now: start + .milliseconds(5), expired: &expired) else {
            Issue.record("expected a batch once the delay passed")
            return
        }
        #expect(batch.map(\.weight) == [3])
        #expect(machine.queuedEvents == 0)
    }

    @Test("A full batch is written at once, without waiting for the delay")
    func fullBatchIsWrittenAtOnce() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        _ = machine.submit(submission(weight: 4), now: start)
        #expect(machine.submit(submission(weight: 4), now: start) == .queued)
        #expect(machine.submit(submission(weight: 4), now: start) == .queuedAndSignal)
        var expired: [Item] = []
        guard case let .write(batch) = machine.takeBatch(now: start, expired: &expired) else {
            Issue.record("expected a batch")
            return
        }
        // 4 + 4 = 8 fits in 10; the third submission would make 12, so it waits for the next batch.
        #expect(batch.map(\.weight) == [4, 4])
        #expect(machine.queuedEvents == 4)
    }

    @Test("A submission larger than a batch is written alone, never split")
    func oversizedSubmissionIsWrittenAlone() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        _ = machine.submit(submission(weight: 15), now: start)
        _ = machine.submit(submission(weight: 2), now: start)
        var expired: [Item] = []
        guard case let .write(batch) = machine.takeBatch(now: start, expired: &expired) else {
            Issue.record("expected a batch")
            return
        }
        #expect(batch.map(\.weight) == [15])
    }

    @Test("Submissions beyond the queue limit are turned away")
    func queueLimitTurnsAwaySubmissions() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        _ = machine.submit(submission(weight: 20), now: start)
        #expect(machine.submit(submission(weight: 6), now: start) == .rejectQueueFull)
        #expect(machine.submit(submission(weight: 5), now: start) != .rejectQueueFull)
    }

    @Test("A submission heavier than the whole queue limit is turned away even when the queue is empty")
    func oversizedFirstSubmissionTurnedAway() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        #expect(machine.submit(submission(weight: 26), now: start) == .rejectQueueFull)
        #expect(machine.queuedEvents == 0)
        #expect(machine.submit(submission(weight: 25), now: start) == .queuedAndSignal)
    }

    @Test("A submission whose deadline passed while queued is handed back as expired, not written")
    func expiredSubmissionsAreHandedBack() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        _ = machine.submit(submission(weight: 2, deadline: .milliseconds(1)), now: start)
        _ = machine.submit(submission(weight: 3), now: start)
        var expired: [Item] = []
        let action = machine.takeBatch(now: start + .milliseconds(6), expired: &expired)
        #expect(expired.map(\.weight) == [2])
        guard case let .write(batch) = action else {
            Issue.record("expected the live submission to be written")
            return
        }
        #expect(batch.map(\.weight) == [3])
    }

    @Test("After shutdown, queued work is drained without waiting and then writers are told to stop")
    func shutdownDrainsThenStops() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        _ = machine.submit(submission(weight: 1), now: start)
        machine.shutDown()
        #expect(machine.submit(submission(weight: 1), now: start) == .rejectShuttingDown)
        var expired: [Item] = []
        guard case .write = machine.takeBatch(now: start, expired: &expired) else {
            Issue.record("expected the queued submission to be drained at once")
            return
        }
        guard case .stop = machine.takeBatch(now: start, expired: &expired) else {
            Issue.record("expected stop once drained")
            return
        }
    }

    @Test("An idle writer waits for work")
    func idleWriterWaits() {
        var machine = BatchingStateMachine<Item>(limits: limits)
        var expired: [Item] = []
        guard case .waitForWork = machine.takeBatch(now: start, expired: &expired) else {
            Issue.record("expected to wait for work")
            return
        }
    }
}
