import CardinalCore
import CardinalStore
import Foundation

/// How numbers appear in table and CSV cells: CSV keeps every digit (the same text as the JSON output), the
/// terminal table rounds so that columns stay readable.
enum CellFormat {
    /// The exact text of a measurement, as in JSON; empty for undefined.
    static func exact(_ value: Double?) -> String? {
        guard case .number(let text) = ReportJSON.number(value) else {
            return nil
        }
        return text
    }

    /// A rate or difference with 4 decimals; empty for undefined.
    static func fixed(_ value: Double?) -> String? {
        value.map { String(format: "%.4f", $0) }
    }

    /// A statistic with 4 significant digits (p-values reach 1e-300); empty for undefined.
    static func significant(_ value: Double?) -> String? {
        value.map { String(format: "%.4g", $0) }
    }

    /// The cell of `column` in `row`: the JSON value's text (so CSV matches the JSON output digit for digit),
    /// rates rounded to 4 decimals unless `exact`; empty for `null`.
    static func cell<Row>(_ column: ReportColumn<Row>, of row: Row, exact: Bool) -> String? {
        switch column.json(row) {
        case .null: nil
        case .string(let text): text
        case .bool(let value): value ? "true" : "false"
        case .number(let text) where column.kind == .rate && !exact: fixed(Double(text))
        case .number(let text): text
        case let value: value.compactText
        }
    }

    /// An interval as `[lower, upper]` with 4 decimals; empty for undefined.
    static func interval(_ lower: Double?, _ upper: Double?) -> String? {
        guard let lower = fixed(lower), let upper = fixed(upper) else {
            return nil
        }
        return "[\(lower), \(upper)]"
    }
}

/// The cell formats of one rendering: exact (CSV) or rounded (terminal table, HTML).
struct CellStyle {
    /// Whether every digit is kept.
    let exact: Bool

    /// A rate, difference or probability.
    func rate(_ value: Double?) -> String? {
        exact ? CellFormat.exact(value) : CellFormat.fixed(value)
    }

    /// A test statistic or p-value.
    func statistic(_ value: Double?) -> String? {
        exact ? CellFormat.exact(value) : CellFormat.significant(value)
    }

    /// An interval: two cells when exact, one `[lower, upper]` cell otherwise.
    func interval(_ interval: Interval?) -> [String?] {
        exact ? [rate(interval?.lower), rate(interval?.upper)] : [CellFormat.interval(interval?.lower, interval?.upper)]
    }

    /// The header cells of an interval column named `name`.
    func intervalHeader(_ name: String) -> [String] {
        exact ? [name + "_lower", name + "_upper"] : [name]
    }
}
