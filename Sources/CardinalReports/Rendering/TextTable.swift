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

    /// Columns padded to their widest cell, two spaces apart, numbers right-aligned.
    public func renderAligned() -> String {
        let cells = rows.map { $0.map { $0 ?? "" } }
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
    public func renderCSV() -> String {
        var text = header.map(Self.csvField).joined(separator: ",") + "\n"
        for row in rows {
            text += row.map { Self.csvField($0 ?? "") }.joined(separator: ",") + "\n"
        }
        return text
    }

    private static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else {
            return value
        }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }

    private static func looksNumeric(_ value: String) -> Bool {
        value.isEmpty || Double(value) != nil
    }
}
