import CardinalLifecycle
import CardinalLogging
import Synchronization
import Testing

@Suite struct ServiceGroupTests {
    /// What the test services did, in order: `start a`, `stop a`.
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])

        func note(_ entry: String) {
            entries.withLock { $0.append(entry) }
        }

        var all: [String] { entries.withLock { $0 } }
    }

    struct Failure: Error, Equatable {}

    /// Holds a service until the test opens it, cancellation or not.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOpen = state.withLock { state in
                    if !state.isOpen {
                        state.waiters.append(continuation)
                    }
                    return state.isOpen
                }
                if isOpen {
                    continuation.resume()
                }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
    }

    /// Runs until cancelled, noting its start and its stop, or fails, or ignores the cancellation.
    struct TestService: Service {
        enum Behaviour: Sendable {
            case stopsWhenCancelled
            case failsAfter(Duration)
            case returnsAfter(Duration)
            case ignoresCancellationUntil(Gate)
        }

        let name: String
        let behaviour: Behaviour
        let journal: Journal

        func run() async throws {
            journal.note("start \(name)")
            switch behaviour {
            case .stopsWhenCancelled:
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(5))
                }
            case .failsAfter(let delay):
                try await Task.sleep(for: delay)
                throw Failure()
            case .returnsAfter(let delay):
                try await Task.sleep(for: delay)
            case .ignoresCancellationUntil(let gate):
                await gate.wait()
            }
            journal.note("stop \(name)")
        }
    }

    private static let logger = Logger(minimumLevel: .error, output: LogOutput { _ in })

    /// A timeout no test reaches unless it means to: the whole suite may keep the concurrency pool's threads
    /// busy for minutes, and a group under test must not give up on a service only because it was not scheduled.
    private static let generousTimeout: Duration = .seconds(3600)

    private static func group(_ services: [TestService], timeout: Duration = generousTimeout) -> ServiceGroup {
        ServiceGroup(services: services, shutdownTimeout: timeout, logger: logger)
    }

    @Test("A graceful shutdown stops the services in the reverse order of their start, and none failed")
    func reverseOrder() async {
        let journal = Journal()
        let group = Self.group(["a", "b", "c"].map { TestService(name: $0, behaviour: .stopsWhenCancelled, journal: journal) })

        async let failures = group.run()
        while journal.all.count < 3 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        group.triggerGracefulShutdown()

        #expect(await failures.isEmpty)
        #expect(Array(journal.all.suffix(3)) == ["stop c", "stop b", "stop a"])
    }

    @Test("A service that fails ends the group: the others are stopped and the failure names the service")
    func failureStopsTheRest() async {
        let journal = Journal()
        let group = Self.group([
            TestService(name: "writers", behaviour: .stopsWhenCancelled, journal: journal),
            TestService(name: "fold", behaviour: .failsAfter(.milliseconds(50)), journal: journal),
            TestService(name: "http", behaviour: .stopsWhenCancelled, journal: journal),
        ])

        let failures = await group.run()

        #expect(failures.map(\.service) == ["fold"])
        #expect(failures.first.map { if case .threw(let error) = $0.reason { error is Failure } else { false } } == true)
        #expect(Array(journal.all.suffix(2)) == ["stop http", "stop writers"])
    }

    @Test("A service that returns before it is asked to stop is reported as having ended on its own")
    func endedEarly() async {
        let journal = Journal()
        let group = Self.group([TestService(name: "replayer", behaviour: .returnsAfter(.milliseconds(20)), journal: journal)])

        let failures = await group.run()

        #expect(failures.map(\.description) == ["replayer ended on its own"])
    }

    @Test("A service still running at the timeout is reported with those not yet stopped, without waiting for it")
    func timeout() async {
        let journal = Journal()
        let stuck = Gate()
        let group = Self.group([
            TestService(name: "writers", behaviour: .stopsWhenCancelled, journal: journal),
            TestService(name: "stuck", behaviour: .ignoresCancellationUntil(stuck), journal: journal),
        ], timeout: .milliseconds(200))

        async let failures = group.run()
        while journal.all.count < 2 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        group.triggerGracefulShutdown()
        // The stuck service is let go only once the group has returned: had the group waited for it, it would
        // not have returned, and the stuck service would not be reported.
        let reported = await failures
        stuck.open()

        #expect(reported.map(\.description) == [
            "stuck did not stop within the shutdown timeout", "writers did not stop within the shutdown timeout",
        ])
    }

    @Test("A threaded service starts and stops on threads of its own when its task is cancelled")
    func threadedService() async {
        let journal = Journal()
        let group = ServiceGroup(services: [
            ThreadedService(name: "writers", start: { journal.note("start writers") }, stop: { journal.note("stop writers") }),
        ], shutdownTimeout: Self.generousTimeout, logger: Self.logger)

        async let failures = group.run()
        while journal.all.isEmpty {
            try? await Task.sleep(for: .milliseconds(5))
        }
        group.triggerGracefulShutdown()

        #expect(await failures.isEmpty)
        #expect(journal.all == ["start writers", "stop writers"])
    }
}
