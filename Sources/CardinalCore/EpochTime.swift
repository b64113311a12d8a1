public import Foundation

/// Exact conversions between `Date` and whole microseconds since the Unix epoch.
///
/// `Date` holds a `Double` of seconds since 2001; going through `timeIntervalSince1970` adds a second
/// rounding step. Converting relative to 2001 keeps the round trip exact to the microsecond for every
/// date from about 1930 to 2070, which covers every event the validator accepts.
public enum EpochTime {
    /// Microseconds from the Unix epoch to the reference date of `Date` (2001-01-01T00:00:00Z).
    static let referenceDateOffset: Int64 = 978_307_200_000_000

    /// The date `microseconds` after 1970-01-01T00:00:00Z.
    public static func date(microseconds: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(microseconds - referenceDateOffset) / 1_000_000)
    }

    /// The whole microseconds from 1970-01-01T00:00:00Z to `date`, rounded to the nearest.
    public static func microseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSinceReferenceDate * 1_000_000).rounded()) + referenceDateOffset
    }
}
