/// Rows of text cells rendered as an aligned terminal table or as CSV.
public struct TextTable: Sendable, Equatable {
    /// The column names.
    public var header: [String]
    /// The rows; `nil` cells are shown empty.
    public var rows: [[String?]]

    /// Creates a table.
    public init(header: [String], rows: [[String?]]) {
        self.header = header
        self.rows = rows
    }

    /// Columns padded to their widest cell, two spaces apart, numbers right-aligned. Control characters in a
    /// cell (a campaign id may hold anything but NUL) are shown escaped (`\n`, `\u{1b}`), so that no cell can
    /// break a row or send escape sequences to the terminal.
    public func renderAligned() -> String {
        let cells = rows.map { $0.map { Self.terminalSafe($0 ?? "") } }
        let widths = header.indices.map { column in
            ([header[column]] + cells.map { column < $0.count ? $0[column] : "" }).map(\.count).max() ?? 0
        }
        let numeric = header.indices.map { column in
            !cells.isEmpty && cells.allSatisfy { column < $0.count && Self.looksNumeric($0[column]) }
        }
        func line(_ values: [String]) -> String {
            values.indices.map { column in
                let value = values[column]
                let padding = String(repeating: " ", count: widths[column] - value.count)
                return numeric[column] ? padding + value : value + padding
            }
            .joined(separator: "  ")
            .replacing(/\s+$/, with: "")
        }
        var text = line(header) + "\n"
        text += line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in cells {
            text += line(header.indices.map { $0 < row.count ? row[$0] : "" }) + "\n"
        }
        return text
    }

    /// RFC 4180 CSV: a header row, fields quoted when they hold a comma, quote or line break.
    ///
    /// A text cell that a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a
    /// carriage return) gets a leading `'`, as OWASP's CSV-injection advice says: a campaign id is whatever a
    /// client sent. Numbers, negative ones included, are left as they are.
    public func renderCSV() -> String {
        var text = header.map(Self.csvField).joined(separator: ",") + "\n"
        for row in rows {
            text += row.map { Self.csvField($0 ?? "") }.joined(separator: ",") + "\n"
        }
        return text
    }

    private static func csvField(_ value: String) -> String {
        let value = Self.formulaSafe(value)
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else {
            return value
        }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }

    /// `value` with a `'` in front when a spreadsheet would run it as a formula; plain numbers unchanged.
    static func formulaSafe(_ value: String) -> String {
        guard let first = value.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first),
              value.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/) == nil
        else {
            return value
        }
        return "'" + value
    }

    /// `value` with its control characters (C0, DEL, C1, U+2028/U+2029) written as escapes.
    static func terminalSafe(_ value: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
        }
        guard value.unicodeScalars.contains(where: isControl) else {
            return value
        }
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isControl(scalar): escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func looksNumeric(_ value: String) -> Bool {
        value.isEmpty || Double(value) != nil
    }
}
