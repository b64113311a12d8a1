@testable import PostgresClient
import Testing

/// The pool's bookkeeping, with integers standing in for connections; no database needed.
@Suite("Pool state machine")
struct PoolStateMachineTests {
    private typealias Machine = PoolStateMachine<Int>

    private func opens(_ action: Machine.AcquireAction) -> Bool {
        if case .lease(.open) = action { return true }
        return false
    }

    private func waiter(_ action: Machine.AcquireAction) -> Machine.WaiterID? {
        if case .wait(let waiter) = action { return waiter }
        return nil
    }

    private func connection(_ grant: Machine.Grant?) -> Int? {
        if case .lease(.use(let connection)) = grant { return connection }
        return nil
    }

    @Test("Connections open lazily up to the limit, then callers wait")
    func opensUpToLimit() {
        var machine = Machine(maxConnections: 2)
        #expect(opens(machine.acquire()))
        #expect(opens(machine.acquire()))
        #expect(waiter(machine.acquire()) != nil)
        #expect(machine.openCount == 2)
    }

    @Test("An idle connection is reused before a new one is opened")
    func reusesIdle() {
        var machine = Machine(maxConnections: 2)
        _ = machine.acquire()
        _ = machine.release(10, reusable: true)
        guard case .lease(.use(10)) = machine.acquire() else {
            Issue.record("expected the idle connection")
            return
        }
        #expect(machine.openCount == 1)
    }

    @Test("A returned connection goes to the longest-waiting caller")
    func handsToFirstWaiter() {
        var machine = Machine(maxConnections: 1)
        _ = machine.acquire()
        let first = waiter(machine.acquire())!
        let second = waiter(machine.acquire())!
        let effects = machine.release(10, reusable: true)
        #expect(effects.wakeWaiters)
        #expect(machine.claim(second) == nil)
        #expect(connection(machine.claim(first)) == 10)
        #expect(machine.waiting == [second])
    }

    @Test("A discarded connection is closed and its slot goes to the first waiting caller")
    func discardedConnectionFreesSlot() {
        var machine = Machine(maxConnections: 1)
        _ = machine.acquire()
        let first = waiter(machine.acquire())!
        let effects = machine.release(10, reusable: false)
        #expect(effects.close == [10])
        #expect(effects.wakeWaiters)
        guard case .lease(.open) = machine.claim(first) else {
            Issue.record("expected permission to open")
            return
        }
        #expect(machine.openCount == 1)
    }

    @Test("A failed open frees the slot")
    func failedOpen() {
        var machine = Machine(maxConnections: 1)
        _ = machine.acquire()
        _ = machine.openFailed()
        #expect(machine.openCount == 0)
        #expect(opens(machine.acquire()))
    }

    @Test("A waiter that times out leaves the queue, unless its grant arrived first")
    func timeouts() {
        var machine = Machine(maxConnections: 1)
        _ = machine.acquire()
        let late = waiter(machine.acquire())!
        let lucky = waiter(machine.acquire())!
        #expect(machine.timeOut(late) == nil)
        #expect(machine.waiting == [lucky])
        _ = machine.release(10, reusable: true)
        #expect(connection(machine.timeOut(lucky)) == 10)
        #expect(machine.waiting.isEmpty)
    }

    @Test("Shutdown closes idle connections, fails waiting callers, refuses new ones and closes returns")
    func shutdown() {
        var machine = Machine(maxConnections: 2)
        _ = machine.acquire()
        _ = machine.acquire()
        _ = machine.release(10, reusable: true)
        _ = machine.acquire()
        let waiting = waiter(machine.acquire())!
        _ = machine.release(11, reusable: true)
        _ = machine.claim(waiting)
        let blocked = waiter(machine.acquire())!

        let effects = machine.shutDown()
        #expect(effects.wakeWaiters)
        guard case .shutDown = machine.claim(blocked), case .shutDown = machine.acquire() else {
            Issue.record("expected the pool to refuse")
            return
        }
        #expect(machine.release(10, reusable: true).close == [10])
        #expect(machine.release(11, reusable: true).close == [11])
        #expect(machine.openCount == 0)
    }
}
