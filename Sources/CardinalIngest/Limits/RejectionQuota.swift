import Synchronization

/// How many rejected events each app may store per clock hour, so that a client sending junk with a leaked key
/// cannot fill `cardinal.rejected_events`: within the quota rejections are stored, beyond it they are still
/// answered in the response but only counted (`cardinal_ingest_rejections_not_stored_total`). Each daemon
/// counts for itself.
final class RejectionQuota: Sendable {
    private struct Usage {
        var hour: Int64
        var stored: Int
    }

    private let perAppPerHour: Int
    private let usage = Mutex([Int64: Usage]())

    /// - Parameter perAppPerHour: rejections stored per app and hour; 0 stores none.
    init(perAppPerHour: Int) {
        self.perAppPerHour = perAppPerHour
    }

    /// How many of `wanted` rejections of `appID` may be stored, counting them as stored.
    /// - Parameter unixSeconds: the time now, in seconds since 1970 (its hour is the quota's period).
    func take(_ wanted: Int, appID: Int64, unixSeconds: Int64) -> Int {
        let hour = unixSeconds / 3600
        return usage.withLock { usage in
            var current = usage[appID].flatMap { $0.hour == hour ? $0 : nil } ?? Usage(hour: hour, stored: 0)
            let granted = max(0, min(wanted, perAppPerHour - current.stored))
            current.stored += granted
            usage[appID] = current
            return granted
        }
    }
}
