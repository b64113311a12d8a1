public import Foundation
public import PostgresClient

/// A calendar day, the unit of report ranges: `--from 2026-11-01 --to 2026-11-30` are report days in each
/// campaign's report time zone, so a day here carries no time zone of its own.
public struct ReportDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days from 1970-01-01 on the proleptic Gregorian calendar.
    public let daysSinceEpoch: Int

    /// The day `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch: Int) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// The given day, or `nil` when there is no such day (month 13, 31 April, 29 February 2027).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...Self.daysInMonth(year: year, month: month)).contains(day)
        else {
            return nil
        }
        daysSinceEpoch = Self.days(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD`, the form of PostgreSQL's `date` output and of the CLI's `--from`/`--to`.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else {
            return nil
        }
        self.init(year: year, month: month, day: day)
    }

    /// The UTC calendar day of `date`.
    public init(utcDayOf date: Date) {
        daysSinceEpoch = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The day `days` later (earlier when negative).
    public func adding(days: Int) -> ReportDate {
        ReportDate(daysSinceEpoch: daysSinceEpoch + days)
    }

    /// The year, month (1–12) and day of the month (1–31).
    public var components: (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = components
        return String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// Earlier days first.
    public static func < (lhs: ReportDate, rhs: ReportDate) -> Bool {
        lhs.daysSinceEpoch < rhs.daysSinceEpoch
    }

    /// Howard Hinnant's days_from_civil.
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension ReportDate: PostgresEncodable, PostgresDecodable {
    /// `YYYY-MM-DD`, which PostgreSQL reads as a `date` under every `DateStyle`.
    public var postgresText: String { description }

    /// Parses PostgreSQL's ISO `date` output.
    public init(postgresText: String) throws {
        guard let date = ReportDate(postgresText) else {
            throw PostgresDecodingFailure("\"\(postgresText)\" is not a date as YYYY-MM-DD")
        }
        self = date
    }
}
