import Foundation

/// Converts between instants and PostgreSQL's ISO text for `timestamptz`, with exact integer microseconds.
///
/// See [Date/Time Output](https://www.postgresql.org/docs/15/datatype-datetime.html#DATATYPE-DATETIME-OUTPUT).
/// Calendar arithmetic uses the proleptic Gregorian calendar, as PostgreSQL does, with Howard Hinnant's
/// days-from-civil algorithms (https://howardhinnant.github.io/date_algorithms.html).
enum TimestampText {
    private static let microsecondsPerSecond: Int64 = 1_000_000
    private static let secondsPerDay: Int64 = 86_400
    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let referenceDateOffset: Int64 = 978_307_200

    /// `date` rounded to whole microseconds since 1970, kept in range so that no conversion traps.
    static func microsecondsSince1970(of date: Date) -> Int64 {
        // Computed from the reference date, which Date stores exactly, rather than from timeIntervalSince1970,
        // which adds a rounding step.
        let sinceReference = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        let limit = Double(Int64.max / 4)
        return Int64(min(max(sinceReference, -limit), limit)) + referenceDateOffset * microsecondsPerSecond
    }

    /// The Date for microseconds since 1970.
    static func date(microsecondsSince1970 microseconds: Int64) -> Date {
        let sinceReference = microseconds - referenceDateOffset * microsecondsPerSecond
        return Date(timeIntervalSinceReferenceDate: Double(sinceReference) / 1_000_000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.ffffff+00`, with ` BC` for years before 1.
    static func format(microsecondsSince1970 microseconds: Int64) -> String {
        let (seconds, fraction) = floorDivide(microseconds, microsecondsPerSecond)
        let (days, secondOfDay) = floorDivide(seconds, secondsPerDay)
        let (year, month, day) = civil(fromDays: days)
        let displayYear = year > 0 ? year : 1 - year
        let time = "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        let text = "\(pad(displayYear, 4))-\(pad(month, 2))-\(pad(day, 2))T\(time).\(pad(fraction, 6))+00"
        return year > 0 ? text : text + " BC"
    }

    /// Microseconds since 1970 of `timestamptz` text in the ISO DateStyle.
    static func parseMicrosecondsSince1970(_ text: String) throws -> Int64 {
        var scanner = TimestampScanner(text)
        let invalid = PostgresDecodingFailure.invalid(text, expected: "a timestamptz in ISO format")
        guard let year = scanner.number(minDigits: 4, maxDigits: 7), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2), scanner.skip(" ") || scanner.skip("T"),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2)
        else { throw invalid }
        var fraction: Int64 = 0
        if scanner.skip(".") {
            guard let digits = scanner.digits(maxCount: 6) else { throw invalid }
            fraction = Int64(digits.value)
            for _ in digits.count..<6 { fraction *= 10 }
        }
        guard let offset = scanner.offsetSeconds() else {
            throw PostgresDecodingFailure.invalid(text, expected: "a timestamptz with a time-zone offset")
        }
        let isBC = scanner.skip(" BC")
        guard scanner.isAtEnd, (1...12).contains(month), (1...daysInMonth(year, month)).contains(day),
              hour <= 24, minute <= 59, second <= 60
        else { throw invalid }
        let astronomicalYear = isBC ? 1 - year : year
        let days = days(fromCivil: astronomicalYear, month, day)
        let seconds = days * secondsPerDay + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        return seconds * microsecondsPerSecond + fraction
    }

    private static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
