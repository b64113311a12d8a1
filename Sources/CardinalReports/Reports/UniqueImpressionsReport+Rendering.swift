public import CardinalCore
import CardinalStore

extension UniqueImpressionsReport {
    /// The report in `format`: JSON is the contract of issue 4
    /// (`{"report":"unique-impressions","from","to","rows":[…]}`), with the breakdown as an extra member of
    /// each row named after it (`"day"`, `"platform"`, …).
    public func render(_ format: OutputFormat) -> String {
        switch format {
        case .table: table(exact: false).renderAligned()
        case .csv: table(exact: true).renderCSV()
        case .json: json.compactText + "\n"
        case .html:
            HTMLPage(
                title: "Unique impressions",
                notes: [ReportText.scopeLine(scope)],
                sections: [HTMLPage.Section(heading: nil, body: table(exact: false).renderHTMLTable())]
            ).render()
        }
    }

    /// The JSON document.
    public var json: JSONValue {
        ReportJSON.object([
            ("report", .string("unique-impressions")),
            ("from", .string(scope.from.description)),
            ("to", .string(scope.to.description)),
            ("rows", .array(rows.map(rowJSON))),
        ])
    }

    private func rowJSON(_ row: UniqueImpressionsRow) -> JSONValue {
        ReportJSON.object(UniqueImpressionsRow.columns.jsonMembers(of: row, breakdown: breakdown))
    }

    /// The rows as a table, one column per column of ``UniqueImpressionsRow/columns`` (the breakdown only with
    /// one); `exact` keeps every digit of the rates (CSV), otherwise 4 decimals.
    func table(exact: Bool) -> TextTable {
        let columns = UniqueImpressionsRow.columns
        let shown = columns.all.compactMap { column in
            columns.shownName(of: column, breakdown: breakdown).map { (name: $0, column: column) }
        }
        return TextTable(
            header: shown.map(\.name),
            rows: rows.map { row in shown.map { CellFormat.cell($0.column, of: row, exact: exact) } }
        )
    }
}
