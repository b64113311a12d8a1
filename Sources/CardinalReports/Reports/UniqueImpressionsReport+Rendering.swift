public import CardinalCore
import CardinalStore

extension UniqueImpressionsReport {
    /// The report in `format`: JSON is the contract of issue 4
    /// (`{"report":"unique-impressions","from","to","rows":[…],"conversions":[…]}`), with the breakdown as an
    /// extra member of each row named after it (`"day"`, `"platform"`, …). The table and the page add a
    /// conversions table when a campaign has conversion events; CSV holds the rows only. Without rows the table
    /// and the page say so, naming the scope; CSV keeps its header and JSON its empty `rows`.
    ///
    /// - Parameters:
    ///   - format: The output format.
    ///   - columns: The terminal table's columns; CSV, JSON and HTML keep every column.
    public func render(_ format: OutputFormat, columns: TableColumns = .standard) -> String {
        switch format {
        case .table where rows.isEmpty: emptyLine + "\n"
        case .table where conversions.isEmpty: table(exact: false, columns: columns).renderAligned()
        case .table:
            table(exact: false, columns: columns).renderAligned() + "\nConversions\n" + conversionsTable().renderAligned()
        case .csv: table(exact: true, columns: .all).renderCSV()
        case .json: json.compactText + "\n"
        case .html:
            HTMLPage(
                title: "Unique impressions",
                notes: [ReportText.scopeLine(scope)] + (rows.isEmpty ? [emptyLine] : []),
                sections: rows.isEmpty ? [] : [
                    HTMLPage.Section(heading: nil, body: table(exact: false, columns: .all).renderHTMLTable()),
                ]
                    + (conversions.isEmpty ? [] : [
                        HTMLPage.Section(heading: "Conversions", body: conversionsTable().renderHTMLTable()),
                    ])
            ).render()
        }
    }

    /// `No rows for app shop, every campaign, 2026-11-01 to 2026-11-30.`
    private var emptyLine: String {
        ReportText.nothing("rows", for: scope)
    }

    /// The JSON document.
    public var json: JSONValue {
        ReportJSON.object([
            ("report", .string("unique-impressions")),
            ("from", .string(scope.from.description)),
            ("to", .string(scope.to.description)),
            ("rows", .array(rows.map(rowJSON))),
            ("conversions", conversionsJSON),
        ])
    }

    private func rowJSON(_ row: UniqueImpressionsRow) -> JSONValue {
        ReportJSON.object(UniqueImpressionsRow.columns.jsonMembers(of: row, breakdown: breakdown))
    }

    /// The rows as a table of the columns `columns` selects (the breakdown only with one); `exact` keeps every
    /// digit of the rates (CSV), otherwise 4 decimals.
    func table(exact: Bool, columns: TableColumns) -> TextTable {
        let shown = shownColumns(columns)
        return TextTable(
            header: shown.map(\.name),
            rows: rows.map { row in shown.map { CellFormat.cell($0.column, of: row, exact: exact) } }
        )
    }
}
