public import CardinalCore
import PostgresClient

/// One column of a report's rows, named once for every place it appears: the result of the SQL function, the
/// JSON output and table renderings, and the stored-run table. ``ReportColumns`` puts them in order.
///
/// The names differ for history's sake (the SQL functions and report tables say `app_name`, the JSON contract
/// `app`); keeping them side by side is what keeps the decoding, the JSON, the stored run and the renderings
/// in step, as `EventColumns` does for ingest.
public struct ReportColumn<Row>: Sendable {
    /// How a value is shown in a table cell.
    public enum Kind: Sendable {
        /// Text, shown as is.
        case text
        /// A count, shown in full.
        case count
        /// A rate or other measurement: every digit in CSV, rounded in the terminal table and HTML.
        case rate
        /// The `--by` breakdown value: shown, and named after the breakdown, only when there is one.
        case breakdown
    }

    /// The name people see: the JSON member and the table header (`app`).
    public let name: String
    /// The column of the SQL function's result (`app_name`).
    public let resultName: String
    /// The column of the stored-run table (`app_name`); `nil` when runs do not store it.
    public let storedName: String?
    /// Whether the JSON output has the column (the JSON contract predates some table columns).
    public let inJSON: Bool
    /// How a table cell shows it.
    public let kind: Kind
    /// The SQL type of the value, as the stored-run insert types it.
    let sqlType: PostgresQuery
    private let read: @Sendable (inout Row, PostgresRow, String) throws -> Void
    private let value: @Sendable (Row) -> JSONValue

    init(
        name: String, result: String? = nil, stored: String?? = .none, inJSON: Bool = true, kind: Kind,
        sqlType: PostgresQuery, read: @escaping @Sendable (inout Row, PostgresRow, String) throws -> Void,
        value: @escaping @Sendable (Row) -> JSONValue
    ) {
        self.name = name
        self.resultName = result ?? name
        switch stored {
        case .none: self.storedName = result ?? name  // not given: stored under its result name
        case .some(let explicit): self.storedName = explicit  // given; nil when not stored
        }
        self.inJSON = inJSON
        self.kind = kind
        self.sqlType = sqlType
        self.read = read
        self.value = value
    }

    /// The value of the column in `row`, as the JSON output and the stored run hold it.
    public func json(_ row: Row) -> JSONValue {
        value(row)
    }

    /// Sets the column of `row` from the column named `column` of a result row.
    func decode(into row: inout Row, from result: PostgresRow, column: String) throws {
        try read(&row, result, column)
    }
}

extension ReportColumn {
    /// A text column that is never NULL.
    static func text(
        _ name: String, result: String? = nil, stored: String?? = .none,
        _ keyPath: any WritableKeyPath<Row, String> & Sendable
    ) -> ReportColumn {
        ReportColumn(
            name: name, result: result, stored: stored, kind: .text, sqlType: "text",
            read: { row, result, column in row[keyPath: keyPath] = try result.decode(String.self, column: column) },
            value: { .string($0[keyPath: keyPath]) }
        )
    }

    /// A text column that may be NULL.
    static func text(
        _ name: String, result: String? = nil, stored: String?? = .none, inJSON: Bool = true,
        kind: Kind = .text, _ keyPath: any WritableKeyPath<Row, String?> & Sendable
    ) -> ReportColumn {
        ReportColumn(
            name: name, result: result, stored: stored, inJSON: inJSON, kind: kind, sqlType: "text",
            read: { row, result, column in row[keyPath: keyPath] = try result.decode(String?.self, column: column) },
            value: { ReportJSON.string($0[keyPath: keyPath]) }
        )
    }

    /// A count (`bigint`) that is never NULL.
    static func count(_ name: String, _ keyPath: any WritableKeyPath<Row, Int64> & Sendable) -> ReportColumn {
        ReportColumn(
            name: name, kind: .count, sqlType: "bigint",
            read: { row, result, column in row[keyPath: keyPath] = try result.decode(Int64.self, column: column) },
            value: { ReportJSON.integer($0[keyPath: keyPath]) }
        )
    }

    /// A count (`bigint`) that is NULL where it does not apply (the push columns on other channels).
    static func count(_ name: String, _ keyPath: any WritableKeyPath<Row, Int64?> & Sendable) -> ReportColumn {
        ReportColumn(
            name: name, kind: .count, sqlType: "bigint",
            read: { row, result, column in row[keyPath: keyPath] = try result.decode(Int64?.self, column: column) },
            value: { ReportJSON.integer($0[keyPath: keyPath]) }
        )
    }

    /// A rate (`double precision`), NULL when undefined.
    static func rate(_ name: String, _ keyPath: any WritableKeyPath<Row, Double?> & Sendable) -> ReportColumn {
        ReportColumn(
            name: name, kind: .rate, sqlType: "double precision",
            read: { row, result, column in row[keyPath: keyPath] = try result.decode(Double?.self, column: column) },
            value: { ReportJSON.number($0[keyPath: keyPath]) }
        )
    }

    /// A text column holding one of the raw values of `Value`.
    /// - Parameters:
    ///   - what: What the value is, for the ``ReportDecodingError`` of an unknown one.
    ///   - expected: The values this version knows, for the same error.
    static func enumeration<Value: RawRepresentable<String> & Sendable>(
        _ name: String, _ keyPath: any WritableKeyPath<Row, Value> & Sendable, what: String, expected: String
    ) -> ReportColumn {
        ReportColumn(
            name: name, kind: .text, sqlType: "text",
            read: { row, result, column in
                let text = try result.decode(String.self, column: column)
                guard let value = Value(rawValue: text) else {
                    throw ReportDecodingError(what: what, value: text, expected: expected)
                }
                row[keyPath: keyPath] = value
            },
            value: { .string($0[keyPath: keyPath].rawValue) }
        )
    }
}
