import Synchronization

/// The bytes of request bodies, as received and as inflated, that the daemon holds at once, across all
/// requests: what keeps its memory near its 64 MB goal whatever the clients send. A request reserves its
/// body's size from its head (before the body is read) and its inflated size before it inflates; a request
/// that finds the budget spent is answered 503 with Retry-After at once, without waiting. An app holds half of
/// the budget at most, so one sending large bodies as fast as it can leaves the other half to the others;
/// only a single request of an app that holds nothing else may take more (the largest request allowed must
/// always be readable).
final class MemoryBudget: Sendable {
    /// Reserved bytes, given back when the reservation is released (when the last reference to it goes,
    /// whichever way the request ended: answered, refused, or its client gone).
    final class Reservation: Sendable {
        let bytes: Int
        let appID: Int64
        private let budget: MemoryBudget

        fileprivate init(bytes: Int, appID: Int64, budget: MemoryBudget) {
            self.bytes = bytes
            self.appID = appID
            self.budget = budget
        }

        deinit {
            budget.release(self)
        }
    }

    private struct State {
        var inUse = 0
        var inUseByApp: [Int64: Int] = [:]
    }

    let capacity: Int
    /// The most one app may hold.
    let perAppCapacity: Int
    private let state = Mutex(State())

    init(bytes: Int) {
        capacity = bytes
        perAppCapacity = bytes / 2
    }

    /// Bytes reserved now.
    var inUse: Int { state.withLock { $0.inUse } }

    /// Reserves `bytes` for a request of `appID`, or returns `nil` when the budget, or the app's half of it,
    /// has fewer left.
    /// - Parameter held: what the same request holds already (its body, when it reserves its inflated size).
    func reserve(_ bytes: Int, for appID: Int64, besides held: Reservation? = nil) -> Reservation? {
        let granted = state.withLock { state in
            let appInUse = state.inUseByApp[appID, default: 0]
            let appHoldsNothingElse = appInUse == (held?.bytes ?? 0)
            let fits = state.inUse + bytes <= capacity
                && (appInUse + bytes <= perAppCapacity || appHoldsNothingElse)
            guard fits else { return false }
            state.inUse += bytes
            state.inUseByApp[appID] = appInUse + bytes
            return true
        }
        return granted ? Reservation(bytes: bytes, appID: appID, budget: self) : nil
    }

    private func release(_ reservation: Reservation) {
        state.withLock { state in
            state.inUse -= reservation.bytes
            let left = state.inUseByApp[reservation.appID, default: 0] - reservation.bytes
            state.inUseByApp[reservation.appID] = left > 0 ? left : nil
        }
    }
}
