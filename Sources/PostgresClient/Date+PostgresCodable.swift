public import Foundation

extension Date: PostgresEncodable, PostgresDecodable {
    /// The instant as ISO 8601 in UTC with microseconds, `2026-11-30T12:34:56.123456+00`, for `timestamptz`.
    ///
    /// The value is rounded to whole microseconds, PostgreSQL's resolution. A Date (a Double of seconds since
    /// 2001) holds every microsecond exactly only within about 285 years of 2001; further out both directions
    /// round to the nearest value a Date can hold.
    public var postgresText: String {
        TimestampText.format(microsecondsSince1970: TimestampText.microsecondsSince1970(of: self))
    }

    /// Parses `timestamptz` output in the ISO `DateStyle` (the default) under any `TimeZone` setting:
    /// `2026-11-30 12:34:56.123456+00`, `2026-11-30 18:04:56+05:30`, `1900-01-01 00:19:32+00:19:32`,
    /// `0044-03-15 12:00:00+00 BC`. `infinity` and `-infinity` become `distantFuture` and `distantPast`.
    ///
    /// - Throws: ``PostgresDecodingFailure`` for other text, including a `timestamp` without time zone.
    public init(postgresText: String) throws {
        switch postgresText {
        case "infinity": self = .distantFuture
        case "-infinity": self = .distantPast
        default:
            let microseconds = try TimestampText.parseMicrosecondsSince1970(postgresText)
            self = TimestampText.date(microsecondsSince1970: microseconds)
        }
    }
}
