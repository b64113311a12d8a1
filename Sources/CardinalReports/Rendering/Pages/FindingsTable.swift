import CardinalStore

/// Integration findings as an HTML table, most severe first, each row classed by severity
/// (`severity-critical`, …) and marked with a symbol as well as a colour, so that a grayscale print keeps
/// the difference.
enum FindingsTable {
    /// The table of `findings` in their order (``AnomaliesReport`` sorts them most severe first).
    static func html(_ findings: [AnomalyFinding]) -> String {
        var html = "<table class=\"findings\"><thead><tr><th>severity</th><th>kind</th><th>app</th>"
            + "<th>campaign or canvas step</th><th>channel</th><th>platform</th><th>sdk_version</th>"
            + "<th>app_version</th><th>evidence</th><th>likely cause</th></tr></thead><tbody>\n"
        for finding in findings {
            let evidence = finding.evidence.items.map { "\($0.name)=\(CellFormat.exact($0.value) ?? "null")" }
                .joined(separator: " ")
            let cells = [finding.kind.rawValue, finding.app, source(of: finding), finding.channel, finding.platform,
                         finding.sdkVersion, finding.appVersion, evidence, finding.likelyCause]
            html += "<tr class=\"severity-\(finding.severity.rawValue)\"><td>\(badge(finding.severity))</td>"
            html += cells.map { "<td>\(HTMLPage.escape($0 ?? ""))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    /// The campaign id, or `canvas / step` for a canvas step's finding.
    static func source(of finding: AnomalyFinding) -> String? {
        if let campaign = finding.campaignID {
            return campaign
        }
        guard let canvas = finding.canvasID, let step = finding.canvasStepID else {
            return nil
        }
        return "\(canvas) / \(step)"
    }

    /// The severity as a symbol and its word: ✖ critical, ▲ warning, ● info.
    static func badge(_ severity: AnomalySeverity) -> String {
        let symbol = switch severity {
        case .critical: "✖"
        case .warning: "▲"
        case .info: "●"
        }
        return "<span class=\"badge severity-\(severity.rawValue)\"><span aria-hidden=\"true\">\(symbol)</span> \(severity.rawValue)</span>"
    }

    /// `2 critical, 1 warning, 0 info`, most severe first.
    static func counts(_ findings: [AnomalyFinding]) -> String {
        AnomalySeverity.allCases.reversed().map { severity in
            "\(findings.filter { $0.severity == severity }.count) \(severity.rawValue)"
        }
        .joined(separator: ", ")
    }
}
