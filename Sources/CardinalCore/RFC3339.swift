/// A parser for RFC 3339 timestamps (`2025-03-01T12:34:56.789012Z`, `2025-03-01t12:34:56+02:00`).
///
/// Hand-written because it runs once per ingested event: `DateFormatter` and `ISO8601DateFormatter` are
/// an order of magnitude slower and round fractions through `Double`. The result is exact integer
/// microseconds, the precision PostgreSQL keeps.
enum RFC3339 {
    /// Parses `YYYY-MM-DD"T"hh:mm:ss[.fraction](Z|±hh:mm)`, `T` and `Z` in either case, into microseconds
    /// since 1970-01-01T00:00:00Z.
    ///
    /// The fraction may have 1 to ``Limits/timeMaxFractionDigits`` digits; digits past the sixth are
    /// dropped (truncated, so a timestamp never moves into the next second). A leap second (`:60`) is not
    /// accepted: POSIX time, `Date` and PostgreSQL cannot represent it.
    /// - Returns: `nil` when the text is not such a timestamp or names a date that does not exist.
    static func microseconds(from text: String) -> Int64? {
        var text = text
        return text.withUTF8 { microseconds(from: $0) }
    }

    static func microseconds(from bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count >= 20, bytes.count <= 35 else { return nil }
        guard let year = digits(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
              let month = digits(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"),
              let day = digits(bytes, 8, 2), bytes[10] | 0x20 == UInt8(ascii: "t"),
              let hour = digits(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
              let minute = digits(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"),
              let second = digits(bytes, 17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...CivilDate.daysInMonth(year: year, month: month)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }

        var position = 19
        var micros: Int64 = 0
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < bytes.count, let digit = digitValue(bytes[position]) {
                if position - fractionStart < 6 { micros = micros * 10 + Int64(digit) }
                position += 1
            }
            let fractionDigits = position - fractionStart
            guard (1...Limits.timeMaxFractionDigits).contains(fractionDigits) else { return nil }
            for _ in fractionDigits..<max(fractionDigits, 6) { micros *= 10 }
        }

        guard position < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        switch bytes[position] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            position += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            guard position + 6 == bytes.count,
                  let offsetHours = digits(bytes, position + 1, 2), bytes[position + 3] == UInt8(ascii: ":"),
                  let offsetMinutes = digits(bytes, position + 4, 2),
                  offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * Int64(offsetHours * 3600 + offsetMinutes * 60)
            position += 6
        default:
            return nil
        }
        guard position == bytes.count else { return nil }

        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let localSeconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return (localSeconds - offsetSeconds) * 1_000_000 + micros
    }

    /// Formats microseconds since the Unix epoch as `YYYY-MM-DDThh:mm:ss[.ffffff]Z`, the fraction without
    /// trailing zeros; for messages that show how a time was understood.
    static func string(microseconds: Int64) -> String {
        let (seconds, micros) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        let (wholeSeconds, fraction) = micros < 0 ? (seconds - 1, micros + 1_000_000) : (seconds, micros)
        let (days, secondOfDay) = wholeSeconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = CivilDate.date(daysSinceEpoch: day)
        var text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(dayOfMonth, 2))T"
            + "\(padded(Int(second / 3600), 2)):\(padded(Int(second / 60 % 60), 2)):\(padded(Int(second % 60), 2))"
        if fraction != 0 {
            var digits = padded(Int(fraction), 6)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    private static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number.magnitude)
        return (number < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<start + count {
            guard let digit = digitValue(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
