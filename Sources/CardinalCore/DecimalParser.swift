import Foundation

/// Reads a conversion `value` from its JSON number text or decimal string into an exact `Decimal`.
///
/// The digits go straight into the decimal significand; nothing passes through `Double`, so `19.99`
/// stays 19.99. Values `Decimal` cannot hold exactly are refused instead of rounded.
enum DecimalParser {
    /// Why a text is not an acceptable value.
    enum Failure: Error, Equatable {
        /// Not in JSON number syntax.
        case syntax
        /// More significant digits than ``Limits/valueMaxSignificantDigits``.
        case tooManyDigits(Int)
        /// Too large or too small in magnitude for ``Limits/valueExponentRange``.
        case outOfRange
    }

    /// Parses `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` exactly.
    static func parse(_ text: String) -> Result<Decimal, Failure> {
        let bytes = Array(text.utf8)
        var position = 0
        func digitRun() -> ArraySlice<UInt8> {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return bytes[start..<position]
        }

        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let integerPart = digitRun()
        guard !integerPart.isEmpty, integerPart.count == 1 || integerPart.first != UInt8(ascii: "0") else {
            return .failure(.syntax)
        }
        var fractionPart: ArraySlice<UInt8> = []
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            fractionPart = digitRun()
            guard !fractionPart.isEmpty else { return .failure(.syntax) }
        }
        var exponent = 0
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            let exponentNegative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
                position += 1
            }
            let exponentDigits = digitRun()
            guard !exponentDigits.isEmpty else { return .failure(.syntax) }
            // Anything past six digits is far outside the range; cap it instead of overflowing.
            for digit in exponentDigits.prefix(6) { exponent = exponent * 10 + Int(digit - UInt8(ascii: "0")) }
            if exponentDigits.count > 6 { exponent = 1_000_000 }
            if exponentNegative { exponent = -exponent }
        }
        guard position == bytes.count else { return .failure(.syntax) }

        var significant = Array(integerPart) + Array(fractionPart)
        exponent -= fractionPart.count
        let leadingZeros = significant.prefix { $0 == UInt8(ascii: "0") }.count
        significant.removeFirst(leadingZeros)
        guard !significant.isEmpty else { return .success(Decimal.zero) }
        while significant.last == UInt8(ascii: "0") {
            significant.removeLast()
            exponent += 1
        }
        guard significant.count <= Limits.valueMaxSignificantDigits else {
            return .failure(.tooManyDigits(significant.count))
        }
        guard Limits.valueExponentRange.contains(exponent) else { return .failure(.outOfRange) }
        return .success(Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand(significant)))
    }

    /// The integer with these (at most 38) decimal digits, built from two exact 19-digit halves.
    private static func significand(_ digits: [UInt8]) -> Decimal {
        func integer(_ run: ArraySlice<UInt8>) -> UInt64 {
            run.reduce(0) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
        }
        let split = max(0, digits.count - 19)
        let low = Decimal(integer(digits[split...]))
        guard split > 0 else { return low }
        return Decimal(integer(digits[..<split])) * Decimal(10_000_000_000_000_000_000 as UInt64) + low
    }
}
