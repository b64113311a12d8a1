extension RawEventFields {
    /// Reads the optional `properties` object as compact JSON text, within `maxBytes`.
    ///
    /// Besides size and type, refuses what PostgreSQL's `jsonb` cannot hold (a NUL character, a number far
    /// outside `numeric`), because one unstorable event must be a rejection, not a failed batch.
    func propertiesJSON(maxBytes: Int) throws(ValidationFailure) -> String? {
        guard let value = present(.properties) else { return nil }
        guard case .object = value else { throw .wrongType(.properties, expected: "an object", got: value) }
        if let problem = Self.storageProblem(in: value) {
            throw ValidationFailure(code: .invalidValue, message: "field \"properties\" \(problem)")
        }
        var utf8: [UInt8] = []
        value.writeCompact(to: &utf8)
        guard utf8.count <= maxBytes else {
            throw ValidationFailure(
                code: .propertiesTooLarge,
                message: "field \"properties\" is \(utf8.count) bytes as compact JSON; the limit is \(maxBytes)")
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private static func storageProblem(in value: JSONValue) -> String? {
        switch value {
        case .null, .bool:
            return nil
        case .number(let text):
            return numericProblem(of: text)
        case .string(let string):
            return string.containsNUL ? nulProblem : nil
        case .array(let elements):
            for element in elements {
                if let problem = storageProblem(in: element) { return problem }
            }
            return nil
        case .object(let object):
            for member in object.members {
                if member.key.containsNUL { return nulProblem }
                if let problem = storageProblem(in: member.value) { return problem }
            }
            return nil
        }
    }

    private static let nulProblem = "contains a NUL character (\\u0000), which cannot be stored"

    /// Why PostgreSQL's `numeric` (which `jsonb` numbers are) would refuse the JSON number `text`, if it would.
    ///
    /// Mirrors `set_var_from_str` and `make_result` of PostgreSQL 15: at most 16 383 digits after the decimal
    /// point and 131 072 before it once the exponent is applied, and an exponent below 2^30 − 1 in magnitude.
    static func numericProblem(of text: String) -> String? {
        let shape = NumberShape(text)
        let shown = text.utf8.count > 40 ? String(text.prefix(40)) + "…" : text
        guard shape.exponent.magnitude < 1_073_741_823 else {
            return "holds the number \(shown), whose exponent is too large to store"
        }
        if max(0, shape.fractionDigits - shape.exponent) > Limits.propertiesNumberMaxScale {
            return "holds the number \(shown), which has more than \(Limits.propertiesNumberMaxScale) digits after the "
                + "decimal point; PostgreSQL cannot store it"
        }
        if let position = shape.leadingDigitPosition,
           position + shape.exponent > Int64(Limits.propertiesNumberMaxIntegerDigits) {
            return "holds the number \(shown), which has more than \(Limits.propertiesNumberMaxIntegerDigits) digits "
                + "before the decimal point; PostgreSQL cannot store it"
        }
        return nil
    }
}

/// The parts of a JSON number's text that decide whether `numeric` can hold it.
private struct NumberShape {
    /// Digits after the decimal point, as written (trailing zeros count: `numeric` keeps them).
    var fractionDigits: Int64 = 0
    /// The exponent, saturated far beyond any limit.
    var exponent: Int64 = 0
    /// For a number other than zero, the digits before the decimal point up to its first significant digit
    /// (`12.3` → 2, `0.05` → −1), before the exponent is applied.
    var leadingDigitPosition: Int64?

    init(_ text: String) {
        var integerDigits: Int64 = 0
        var leadingFractionZeros: Int64 = 0
        var integerIsZero = true
        var fractionIsZero = true
        var part = 0  // 0: integer, 1: fraction, 2: exponent
        var negativeExponent = false
        var magnitude: Int64 = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                part = 2
            case UInt8(ascii: "-") where part == 2:
                negativeExponent = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = Int64(byte - UInt8(ascii: "0"))
                switch part {
                case 0:
                    integerDigits += 1
                    if digit != 0 { integerIsZero = false }
                case 1:
                    fractionDigits += 1
                    if fractionIsZero {
                        if digit == 0 { leadingFractionZeros += 1 } else { fractionIsZero = false }
                    }
                default:
                    magnitude = min(magnitude * 10 + digit, 1 << 40)
                }
            default:
                break
            }
        }
        exponent = negativeExponent ? -magnitude : magnitude
        if !integerIsZero {
            // JSON allows no leading zeros, so every integer digit is significant.
            leadingDigitPosition = integerDigits
        } else if !fractionIsZero {
            leadingDigitPosition = -leadingFractionZeros
        }
    }
}
