/// Reads the pieces of a timestamp's text from left to right, for ``TimestampText``.
struct TimestampScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Whether everything has been read.
    var isAtEnd: Bool { position == bytes.count }

    /// Consumes `literal` if the text continues with it.
    mutating func skip(_ literal: String) -> Bool {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count,
              bytes[position..<position + expected.count].elementsEqual(expected)
        else { return false }
        position += expected.count
        return true
    }

    /// Consumes one to `maxCount` decimal digits and returns their value and how many there were.
    mutating func digits(maxCount: Int) -> (value: Int, count: Int)? {
        var value = 0
        var count = 0
        while count < maxCount, position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
            count += 1
            position += 1
        }
        return count > 0 ? (value, count) : nil
    }

    /// Consumes a number of exactly `digits` digits.
    mutating func number(digits: Int) -> Int? {
        number(minDigits: digits, maxDigits: digits)
    }

    /// Consumes a number of `minDigits` to `maxDigits` digits.
    mutating func number(minDigits: Int, maxDigits: Int) -> Int? {
        let start = position
        guard let read = digits(maxCount: maxDigits), read.count >= minDigits else {
            position = start
            return nil
        }
        return read.value
    }

    /// Consumes a UTC offset, `+05`, `-03:30`, `+00:19:32` or `Z`, and returns it in seconds east of UTC.
    mutating func offsetSeconds() -> Int? {
        if skip("Z") { return 0 }
        let sign: Int
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(digits: 2) else { return nil }
        var seconds = hours * 3600
        if skip(":") {
            guard let minutes = number(digits: 2) else { return nil }
            seconds += minutes * 60
            if skip(":") {
                guard let extra = number(digits: 2) else { return nil }
                seconds += extra
            }
        }
        return sign * seconds
    }
}
