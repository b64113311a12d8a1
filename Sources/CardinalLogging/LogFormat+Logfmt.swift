extension LogFormat {
    /// `value` as a logfmt value: bare when it is safe, else in double quotes with `\\`, `"`, `\n`, `\r` and `\t`
    /// escaped and every other control character (C0, DEL, C1, U+2028/U+2029) as `\u{…}`, so that no value can
    /// end a line or forge another one, nor send escape sequences to a terminal.
    static func logfmtValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty
            || value.unicodeScalars.contains { $0 == " " || $0 == "=" || $0 == "\"" || isControl($0) }
        guard needsQuotes else {
            return value
        }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isControl(scalar): escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// Whether a scalar could end a line, move the cursor or start a terminal escape sequence.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
