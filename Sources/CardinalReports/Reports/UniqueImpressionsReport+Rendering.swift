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
        var members: [(String, JSONValue)] = [
            ("app", .string(row.app)),
            ("campaign_id", ReportJSON.string(row.campaignID)),
            ("canvas_step_id", ReportJSON.string(row.canvasStepID)),
            ("variant_id", ReportJSON.string(row.variantID)),
            ("channel", .string(row.channel)),
        ]
        if let breakdown {
            members.append((breakdown.rawValue, ReportJSON.string(row.breakdown)))
        }
        members += row.figureMembers
        return ReportJSON.object(members)
    }

    /// The rows as a table; `exact` keeps every digit of the rates (CSV), otherwise 4 decimals.
    func table(exact: Bool) -> TextTable {
        let style = CellStyle(exact: exact)
        var header = ["app", "campaign_id", "canvas_id", "canvas_step_id", "variant_id", "channel"]
        if let breakdown {
            header.append(breakdown.rawValue)
        }
        header += [
            "impressions", "unique_impressions", "unique_daily_impressions", "unique_recipients", "clicks",
            "unique_clicks", "dismissals", "unique_dismissals", "click_rate", "unique_click_rate", "dismissal_rate",
            "unique_dismissal_rate",
        ]
        return TextTable(header: header, rows: rows.map { row in
            var cells: [String?] = [row.app, row.campaignID, row.canvasID, row.canvasStepID, row.variantID, row.channel]
            if breakdown != nil {
                cells.append(row.breakdown)
            }
            cells += [row.impressions, row.uniqueImpressions, row.uniqueDailyImpressions, row.uniqueRecipients,
                      row.clicks, row.uniqueClicks, row.dismissals, row.uniqueDismissals].map { String($0) }
            cells += [row.clickRate, row.uniqueClickRate, row.dismissalRate, row.uniqueDismissalRate].map(style.rate)
            return cells
        })
    }
}
