import CardinalCore
import CardinalLogging
import Foundation
import Synchronization

/// The validation policy of the daemon, whose retention follows `cardinal.settings.retention_days`: read at
/// start and again every interval, so that a lowered retention (or a daemon started while the database was
/// down, which validates with the default 400 days) makes old events `time_too_old` within a minute instead
/// of failing their batches in `ensure_event_partitions`.
///
/// With `--retention-days` the policy is fixed and never re-read.
final class RetentionSetting: Sendable {
    private let policyState: Mutex<ValidationPolicy>
    private let load: (@Sendable () throws -> Int)?
    private let logger: Logger
    private let stopSignal = DispatchSemaphore(value: 0)
    private let refresher = DispatchGroup()
    private let isRefreshing = Mutex(false)

    /// A policy fixed by configuration.
    init(fixed policy: ValidationPolicy, logger: Logger) {
        policyState = Mutex(policy)
        load = nil
        self.logger = logger
    }

    /// A policy whose retention is read with `load`; until the first successful read it is `initial`'s.
    init(initial: ValidationPolicy, logger: Logger, load: @escaping @Sendable () throws -> Int) {
        policyState = Mutex(initial)
        self.load = load
        self.logger = logger
    }

    /// Whether the retention is read from the database, so that it is worth refreshing.
    var isRefreshed: Bool { load != nil }

    /// The policy to validate a request with now.
    var policy: ValidationPolicy { policyState.withLock { $0 } }

    /// Reads the retention once; on failure, or a value out of range, the current one is kept and a warning
    /// logged. Returns the retention in force afterwards.
    @discardableResult
    func refresh() -> Int {
        let current = policy.retentionDays
        guard let load else { return current }
        let days: Int
        do {
            days = try load()
        } catch {
            logger.log(.warning, "cannot read cardinal.settings; validating with the retention in force", [
                "ingest.retention_days": String(current), "db.error": String(describing: error),
            ])
            return current
        }
        guard ValidationPolicy.retentionDaysRange.contains(days) else {
            logger.log(.warning, "cardinal.settings.retention_days is out of range; validating with the retention in force", [
                "ingest.retention_days": String(current), "db.value": String(days),
            ])
            return current
        }
        if days != current {
            policyState.withLock { $0.retentionDays = days }
            logger.log(.info, "retention changed", ["ingest.retention_days": String(days), "ingest.previous": String(current)])
        }
        return days
    }

    /// Re-reads the retention every `interval` on a thread of its own, until ``stopRefreshing()``.
    func startRefreshing(every interval: Duration) {
        guard load != nil, isRefreshing.withLock({ started in defer { started = true }; return !started }) else { return }
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        refresher.enter()
        let thread = Thread { [self] in
            defer { refresher.leave() }
            while stopSignal.wait(timeout: .now() + seconds) == .timedOut {
                refresh()
            }
        }
        thread.name = "cardinal-settings"
        thread.start()
    }

    /// Stops the refreshing thread and waits for it.
    func stopRefreshing() {
        guard isRefreshing.withLock({ $0 }) else { return }
        stopSignal.signal()
        refresher.wait()
    }
}
