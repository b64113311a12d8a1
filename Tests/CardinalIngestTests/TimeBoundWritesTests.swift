import CardinalStore
import Foundation
import Synchronization
import Testing

@testable import CardinalIngest

@Suite struct TimeBoundWritesTests {
    /// A sink whose writes block until released.
    final class GatedSink: BatchSink, Sendable {
        let gate = DispatchSemaphore(value: 0)
        let calls = Atomic(0)

        func write(events: [EventRecord], rejections: [RejectionRecord]) throws(WriteFailure) -> [Bool] {
            calls.add(1, ordering: .relaxed)
            gate.wait()
            return [true]
        }
    }

    @Test("A call past its deadline times out, the next is refused as busy, and once it returns calls work again")
    func deadlineThenBusyThenFinished() {
        let sink = GatedSink()
        let writes = TimeBoundWrites(sink: sink, name: "test-commit")
        defer { writes.stop() }
        guard case .timedOut = writes.write(events: [], rejections: [], deadline: .now + .milliseconds(20)) else {
            Issue.record("expected a timeout")
            return
        }
        guard case .busy = writes.write(events: [], rejections: [], deadline: .now + .milliseconds(20)) else {
            Issue.record("expected busy while the first call runs")
            return
        }
        sink.gate.signal()
        sink.gate.signal()
        var outcome = writes.write(events: [], rejections: [], deadline: .now + .seconds(10))
        while case .busy = outcome {
            Thread.sleep(forTimeInterval: 0.005)
            outcome = writes.write(events: [], rejections: [], deadline: .now + .seconds(10))
        }
        guard case .finished(.success([true])) = outcome else {
            Issue.record("expected the second call to finish, got \(outcome)")
            return
        }
        #expect(sink.calls.load(ordering: .relaxed) == 2)
    }
}
