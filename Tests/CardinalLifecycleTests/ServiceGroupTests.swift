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

    /// Runs until cancelled, noting its start and its stop, or fails, or ignores the cancellation.
    struct TestService: Service {
        enum Behaviour: Sendable {
            case stopsWhenCancelled
            case failsAfter(Duration)
            case returnsAfter(Duration)
            case ignoresCancellation
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
            case .ignoresCancellation:
                let end = ContinuousClock.now + .seconds(5)
                while ContinuousClock.now < end {
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            journal.note("stop \(name)")
        }
    }

    private static let logger = Logger(minimumLevel: .error, output: LogOutput { _ in })

    private static func group(_ services: [TestService], timeout: Duration = .seconds(5)) -> ServiceGroup {
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

    @Test("A service still running at the timeout is reported, and the group returns without waiting for it")
    func timeout() async {
        let journal = Journal()
        let group = Self.group([
            TestService(name: "writers", behaviour: .stopsWhenCancelled, journal: journal),
            TestService(name: "stuck", behaviour: .ignoresCancellation, journal: journal),
        ], timeout: .milliseconds(200))
        let started = ContinuousClock.now

        async let failures = group.run()
        while journal.all.count < 2 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        group.triggerGracefulShutdown()

        #expect(await failures.map(\.description) == [
            "stuck did not stop within the shutdown timeout", "writers did not stop within the shutdown timeout",
        ])
        #expect(ContinuousClock.now - started < .seconds(3), "the stuck service runs for 5 s")
    }

    @Test("A threaded service starts and stops on threads of its own when its task is cancelled")
    func threadedService() async {
        let journal = Journal()
        let group = ServiceGroup(services: [
            ThreadedService(name: "writers", start: { journal.note("start writers") }, stop: { journal.note("stop writers") }),
        ], shutdownTimeout: .seconds(5), logger: Self.logger)

        async let failures = group.run()
        while journal.all.isEmpty {
            try? await Task.sleep(for: .milliseconds(5))
        }
        group.triggerGracefulShutdown()

        #expect(await failures.isEmpty)
        #expect(journal.all == ["start writers", "stop writers"])
    }
}
