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
            return exponentMagnitude(of: text) > Limits.propertiesNumberMaxExponent
                ? "holds the number \(text), whose exponent is beyond ±\(Limits.propertiesNumberMaxExponent)" : nil
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

    /// The magnitude of the exponent of a JSON number's text, capped well past the limit.
    private static func exponentMagnitude(of text: String) -> Int {
        guard let marker = text.utf8.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "e") }) else { return 0 }
        var magnitude = 0
        for byte in text.utf8[text.utf8.index(after: marker)...] where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            magnitude = min(magnitude * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000)
        }
        return magnitude
    }
}
