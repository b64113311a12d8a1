import CardinalCore
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
              (1...CivilDate.daysInMonth(year: year, month: month)).contains(day)
        else {
            return nil
        }
        daysSinceEpoch = Int(CivilDate.daysSinceEpoch(year: year, month: month, day: day))
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
        CivilDate.date(daysSinceEpoch: Int64(daysSinceEpoch))
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
