import Foundation

extension TextTable {
    /// A JSON array with one object per row, keyed by the header, `null` for empty cells.
    public func renderJSON() -> String {
        let objects: [[String: Any]] = rows.map { row in
            var object: [String: Any] = [:]
            for (column, name) in header.enumerated() {
                object[name] = column < row.count ? (row[column] as Any?) ?? NSNull() : NSNull()
            }
            return object
        }
        // Arrays of dictionaries of strings and NSNull always serialise.
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
