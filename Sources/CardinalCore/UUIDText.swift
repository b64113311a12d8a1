import Foundation

/// Reads a UUID from its canonical text form: 32 hexadecimal digits (either case) grouped 8-4-4-4-12.
///
/// Stricter than "whatever `uuid_parse` takes" on purpose: the id is the idempotency key, so braces,
/// `urn:uuid:` prefixes or missing hyphens are refused rather than guessed at.
enum UUIDText {
    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { utf8 -> UUID? in
            guard utf8.count == 36 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &uuid) { output -> Bool in
                var outputIndex = 0
                var position = 0
                while position < 36 {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        guard utf8[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                        continue
                    }
                    guard let high = hexValue(utf8[position]), let low = hexValue(utf8[position + 1]) else {
                        return false
                    }
                    output[outputIndex] = high << 4 | low
                    outputIndex += 1
                    position += 2
                }
                return true
            }
            return parsed ? UUID(uuid: uuid) : nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
