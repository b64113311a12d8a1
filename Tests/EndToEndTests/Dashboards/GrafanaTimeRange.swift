import Foundation

/// A dashboard's time range as Grafana's backend receives it: two instants with millisecond precision.
struct GrafanaTimeRange {
    let from: Date
    let to: Date

    /// The range that ends now and starts `seconds` before, both cut to whole milliseconds as the browser
    /// sends them.
    static func last(seconds: TimeInterval) -> GrafanaTimeRange {
        let now = (Date.now.timeIntervalSince1970 * 1000).rounded(.down) / 1000
        return GrafanaTimeRange(from: Date(timeIntervalSince1970: now - seconds), to: Date(timeIntervalSince1970: now))
    }

    /// `date` as Go's `time.RFC3339Nano` in UTC, the layout the PostgreSQL macros print: seconds, then the
    /// fraction with its trailing zeros removed (none when it is zero), then `Z`; e.g. `2018-04-12T18:00:00Z`,
    /// `1960-02-01T07:00:00.5Z`.
    static func rfc3339Nano(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = Int64((Double(milliseconds) / 1000).rounded(.down))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let whole = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        let fraction = milliseconds - seconds * 1000
        guard fraction != 0 else {
            return whole + "Z"
        }
        var digits = String(format: "%03lld", fraction)
        while digits.hasSuffix("0") {
            digits.removeLast()
        }
        return "\(whole).\(digits)Z"
    }

    /// `date` as Go's `Time.Unix()`: whole seconds since the epoch, rounded down.
    static func unixSeconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
