import CardinalCore
import CardinalLogging
import Synchronization
import Testing

@testable import CardinalIngest

@Suite struct RetentionSettingTests {
    private let logger = Logger(minimumLevel: .error)

    @Test("A lowered retention in the database is validated with after the next refresh")
    func loweredRetentionTakesEffect() {
        let stored = Mutex(400)
        let setting = RetentionSetting(initial: ValidationPolicy(), logger: logger) { stored.withLock { $0 } }
        #expect(setting.refresh() == 400)
        stored.withLock { $0 = 30 }
        #expect(setting.policy.retentionDays == 400, "nothing changes between refreshes")
        #expect(setting.refresh() == 30)
        #expect(setting.policy.retentionDays == 30)
    }

    @Test("A daemon started while the database was down validates with the default, then with the database's value")
    func startedDuringOutage() {
        let reachable = Mutex(false)
        struct Unreachable: Error {}
        let setting = RetentionSetting(initial: ValidationPolicy(), logger: logger) {
            guard reachable.withLock({ $0 }) else { throw Unreachable() }
            return 90
        }
        #expect(setting.refresh() == Limits.defaultRetentionDays)
        reachable.withLock { $0 = true }
        #expect(setting.refresh() == 90)
    }

    @Test("A retention out of range, or a failed read, keeps the retention in force", arguments: [0, -5, 40_000])
    func outOfRangeKept(days: Int) {
        let stored = Mutex(120)
        let setting = RetentionSetting(initial: ValidationPolicy(), logger: logger) { stored.withLock { $0 } }
        setting.refresh()
        stored.withLock { $0 = days }
        #expect(setting.refresh() == 120)
    }

    @Test("A retention fixed by configuration is never re-read")
    func fixedRetention() {
        let setting = RetentionSetting(fixed: ValidationPolicy(retentionDays: 10), logger: logger)
        #expect(setting.refresh() == 10)
        #expect(setting.policy.retentionDays == 10)
    }

    @Test("The refreshing thread re-reads the retention on its interval and stops when asked")
    func refreshingThread() async throws {
        let reads = Mutex(0)
        let setting = RetentionSetting(initial: ValidationPolicy(), logger: logger) {
            reads.withLock { $0 += 1 }
            return 50
        }
        setting.startRefreshing(every: .milliseconds(10))
        for _ in 0..<200 where setting.policy.retentionDays != 50 {
            try await Task.sleep(for: .milliseconds(10))
        }
        setting.stopRefreshing()
        #expect(setting.policy.retentionDays == 50)
        let afterStop = reads.withLock { $0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(reads.withLock { $0 } == afterStop)
    }
}
