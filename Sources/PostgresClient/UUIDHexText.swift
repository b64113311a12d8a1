import Foundation

/// The hyphenated hexadecimal form of a UUID (8-4-4-4-12 digits), written and read without Foundation's
/// `uuidString` and `UUID(uuidString:)`, which go through `sprintf` and `sscanf`: the ingest path turns every event
/// id into text for COPY and back from `RETURNING`, and `sscanf` alone was about 4 % of cardinald's CPU samples.
enum UUIDHexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The lower-case form PostgreSQL prints.
    static func format(_ uuid: UUID) -> String {
        let u = uuid.uuid
        let bytes = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text.append(UInt8(ascii: "-"))
            }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The UUID written in the hyphenated form with digits of either case; `nil` for anything else.
    static func parse(_ text: String) -> UUID? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else {
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for (position, character) in utf8.enumerated() {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard character == UInt8(ascii: "-") else {
                    return nil
                }
                continue
            }
            guard let digit = value(ofDigit: character) else {
                return nil
            }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    private static func value(ofDigit character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
