public import CardinalCore
import CardinalStore

extension AnomaliesReport {
    /// The report in `format`: JSON is the contract of issue 4 (`{"report":"anomalies","findings":[…]}`).
    /// Without findings the table and the page say so, naming the scope; CSV keeps its header and JSON its
    /// empty `findings`.
    public func render(_ format: OutputFormat) -> String {
        let emptyLine = ReportText.nothing("findings", for: scope)
        switch format {
        case .table where findings.isEmpty: return emptyLine + "\n"
        case .table: return table.renderAligned()
        case .csv: return table.renderCSV()
        case .json: return json.compactText + "\n"
        case .html:
            return HTMLPage(
                title: "Integration anomalies",
                notes: [ReportText.scopeLine(scope), findings.isEmpty ? emptyLine : ReportText.count(findings.count, "finding")],
                sections: findings.isEmpty ? [] : [HTMLPage.Section(heading: nil, body: FindingsTable.html(findings))]
            ).render()
        }
    }

    /// The JSON document.
    public var json: JSONValue {
        ReportJSON.object([
            ("report", .string("anomalies")),
            ("findings", .array(findings.map { finding in
                ReportJSON.object(AnomalyFinding.columns.jsonMembers(of: finding, breakdown: nil))
            })),
        ])
    }

    /// One row per finding, a canvas step's with its canvas and step ids; the evidence as compact `name=value`
    /// pairs.
    var table: TextTable {
        TextTable(
            header: ["severity", "kind", "app", "campaign_id", "canvas_id", "canvas_step_id", "channel", "platform",
                     "sdk_version", "app_version", "evidence", "likely_cause"],
            rows: findings.map { finding in
                [finding.severity.rawValue, finding.kind.rawValue, finding.app, finding.campaignID, finding.canvasID,
                 finding.canvasStepID, finding.channel, finding.platform, finding.sdkVersion, finding.appVersion,
                 finding.evidence.items.map { "\($0.name)=\(CellFormat.exact($0.value) ?? "null")" }
                     .joined(separator: " "),
                 finding.likelyCause]
            }
        )
    }
}
