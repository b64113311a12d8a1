extension JSONValue {
    /// The value as compact JSON text: no insignificant whitespace, members in their order, numbers as
    /// received, only the escapes JSON requires (`"`, `\` and control characters), everything else as UTF-8.
    public var compactText: String {
        var utf8: [UInt8] = []
        writeCompact(to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Appends the compact JSON text of the value to `utf8`.
    func writeCompact(to utf8: inout [UInt8]) {
        switch self {
        case .null:
            utf8.append(contentsOf: "null".utf8)
        case .bool(let flag):
            utf8.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text):
            utf8.append(contentsOf: text.utf8)
        case .string(let string):
            Self.writeString(string, to: &utf8)
        case .array(let elements):
            utf8.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { utf8.append(UInt8(ascii: ",")) }
                element.writeCompact(to: &utf8)
            }
            utf8.append(UInt8(ascii: "]"))
        case .object(let object):
            utf8.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { utf8.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &utf8)
                utf8.append(UInt8(ascii: ":"))
                member.value.writeCompact(to: &utf8)
            }
            utf8.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ string: String, to utf8: inout [UInt8]) {
        utf8.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): utf8.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): utf8.append(contentsOf: #"\\"#.utf8)
            case 0x0A: utf8.append(contentsOf: #"\n"#.utf8)
            case 0x0D: utf8.append(contentsOf: #"\r"#.utf8)
            case 0x09: utf8.append(contentsOf: #"\t"#.utf8)
            case 0x08: utf8.append(contentsOf: #"\b"#.utf8)
            case 0x0C: utf8.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                utf8.append(contentsOf: #"\u00"#.utf8)
                utf8.append(hex[Int(byte >> 4)])
                utf8.append(hex[Int(byte & 0x0F)])
            default: utf8.append(byte)
            }
        }
        utf8.append(UInt8(ascii: "\""))
    }
}
