/// The bookkeeping of ``PostgresPool``: idle connections, how many are open, and who waits.
///
/// A pure value: no locks, no I/O, no clock. The pool keeps it behind a Mutex, performs the actions it
/// returns (open a connection, close one, wake waiting threads) outside the lock, and tells it when a wait
/// timed out. Generic over the connection so that its logic can be tested without a database.
///
/// Invariant: threads wait only while all `maxConnections` are open and none is idle; a connection that
/// becomes free, or a slot that opens up, goes to the longest-waiting thread first.
struct PoolStateMachine<Connection: Sendable> {
    /// Identifies a waiting caller.
    typealias WaiterID = Int

    /// What a caller may do once it has a turn.
    enum Lease: Sendable {
        /// Use this idle connection.
        case use(Connection)
        /// Open a new connection; a slot is reserved for it (report failure with ``openFailed()``).
        case open
    }

    /// The answer to ``acquire()``.
    enum AcquireAction: Sendable {
        /// Go ahead.
        case lease(Lease)
        /// Wait, then ask ``claim(_:)`` and, when time is up, ``timeOut(_:)``.
        case wait(WaiterID)
        /// The pool is shut down.
        case shutDown
    }

    /// What a waiting caller was given.
    enum Grant: Sendable {
        /// Go ahead.
        case lease(Lease)
        /// The pool was shut down while waiting.
        case shutDown
    }

    /// What the pool must do after a change.
    struct Effects: Sendable {
        /// Connections to close, outside the lock.
        var close: [Connection] = []
        /// Whether waiting callers got grants and must be woken.
        var wakeWaiters = false
    }

    /// The most connections open at once.
    let maxConnections: Int
    /// Connections open and free, the most recently used last.
    private(set) var idle: [Connection] = []
    /// Connections that are open, being opened, or lent out.
    private(set) var openCount = 0
    /// Whether ``shutDown()`` was called.
    private(set) var isShutDown = false
    /// Waiting callers, in arrival order.
    private(set) var waiting: [WaiterID] = []
    private var grants: [WaiterID: Grant] = [:]
    private var nextWaiterID: WaiterID = 0

    /// An empty pool.
    init(maxConnections: Int) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.maxConnections = maxConnections
    }

    /// A caller wants a connection.
    mutating func acquire() -> AcquireAction {
        if isShutDown { return .shutDown }
        if let connection = idle.popLast() { return .lease(.use(connection)) }
        if openCount < maxConnections {
            openCount += 1
            return .lease(.open)
        }
        let waiter = nextWaiterID
        nextWaiterID += 1
        waiting.append(waiter)
        return .wait(waiter)
    }

    /// A woken caller asks whether it got something; nil means keep waiting.
    mutating func claim(_ waiter: WaiterID) -> Grant? {
        grants.removeValue(forKey: waiter)
    }

    /// A caller's wait timed out. Returns the grant that arrived meanwhile, or nil when the caller gave up
    /// and has been removed from the queue.
    mutating func timeOut(_ waiter: WaiterID) -> Grant? {
        if let grant = grants.removeValue(forKey: waiter) { return grant }
        waiting.removeAll { $0 == waiter }
        return nil
    }

    /// Opening a connection for a ``Lease/open`` lease failed: the slot is free again.
    mutating func openFailed() -> Effects {
        openCount -= 1
        return passFreeSlotOn()
    }

    /// A lent connection comes back.
    ///
    /// - Parameter reusable: false when the connection is broken or in an unknown state; it is closed.
    mutating func release(_ connection: Connection, reusable: Bool) -> Effects {
        guard reusable, !isShutDown else {
            openCount -= 1
            var effects = passFreeSlotOn()
            effects.close.append(connection)
            return effects
        }
        guard waiting.isEmpty else {
            grants[waiting.removeFirst()] = .lease(.use(connection))
            return Effects(wakeWaiters: true)
        }
        idle.append(connection)
        return Effects()
    }

    /// Stops the pool: idle connections close, waiting callers fail, later callers are refused, and lent
    /// connections close when they come back.
    mutating func shutDown() -> Effects {
        isShutDown = true
        let effects = Effects(close: idle, wakeWaiters: !waiting.isEmpty)
        openCount -= idle.count
        idle.removeAll()
        for waiter in waiting {
            grants[waiter] = .shutDown
        }
        waiting.removeAll()
        return effects
    }

    /// After a slot freed up, lets the first waiting caller open a connection in it.
    private mutating func passFreeSlotOn() -> Effects {
        guard !isShutDown, !waiting.isEmpty else { return Effects() }
        openCount += 1
        grants[waiting.removeFirst()] = .lease(.open)
        return Effects(wakeWaiters: true)
    }
}
