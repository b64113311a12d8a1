import Foundation

/// Threads of their own for blocking work (database calls), so that a stuck call never holds a thread of the
/// Swift concurrency or Dispatch pools, and so that how many such calls run at once is fixed: at most
/// `threads`, whatever the request rate.
final class BlockingWorkers: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopping = false
    }

    private let state = ConditionProtected(State())

    /// Starts `threads` threads named `name-0`, `name-1`…
    init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [state] in Self.work(state) }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `job` on one of the threads, after the jobs submitted before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        state.signalAll()
    }

    /// Lets the threads end once the jobs already submitted are done.
    func stop() {
        state.withLock { $0.stopping = true }
        state.signalAll()
    }

    private static func work(_ state: ConditionProtected<State>) {
        while true {
            var job: (@Sendable () -> Void)?
            var stop = false
            state.withLockThenWait { state in
                if state.head < state.jobs.count {
                    job = state.jobs[state.head]
                    state.head += 1
                    if state.head == state.jobs.count {
                        state.jobs.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    return .proceed
                }
                stop = state.stopping
                return stop ? .proceed : .forever
            }
            if let job {
                job()
            } else if stop {
                return
            }
        }
    }
}
