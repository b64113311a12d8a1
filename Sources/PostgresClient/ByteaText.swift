/// The hex format of `bytea`: `\x` followed by two lower-case hex digits per byte.
///
/// See [Binary Data Types](https://www.postgresql.org/docs/15/datatype-binary.html).
enum ByteaText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The hex text for `bytes`.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 2 + 2 * bytes.count) { text in
            text[0] = UInt8(ascii: "\\")
            text[1] = UInt8(ascii: "x")
            var position = 2
            for byte in bytes {
                text[position] = digits[Int(byte >> 4)]
                text[position + 1] = digits[Int(byte & 0x0f)]
                position += 2
            }
            return position
        }
    }

    /// The bytes of hex text.
    ///
    /// - Throws: ``PostgresDecodingFailure`` when the text is not hex format (for example because the session
    ///   sets `bytea_output = 'escape'`).
    static func decode(_ text: String) throws -> [UInt8] {
        var text = text
        return try text.withUTF8 { utf8 in
            guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
                throw PostgresDecodingFailure("bytea text is not in hex format (\\x…); set bytea_output = 'hex'")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count / 2 - 1)
            var position = 2
            while position < utf8.count {
                guard let high = value(ofHexDigit: utf8[position]), let low = value(ofHexDigit: utf8[position + 1]) else {
                    throw PostgresDecodingFailure("bytea text has a character that is not a hex digit at offset \(position)")
                }
                bytes.append(high << 4 | low)
                position += 2
            }
            return bytes
        }
    }

    private static func value(ofHexDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
