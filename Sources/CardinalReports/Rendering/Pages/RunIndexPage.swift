import CardinalStore
import Foundation

/// The index page of a report run: what it covered, the apps, the findings by severity and one linked row per
/// campaign.
struct RunIndexPage: Sendable {
    /// One campaign's row.
    struct Entry: Sendable {
        /// The app and campaign.
        var key: ControlReport.CampaignKey
        /// The campaign page's file name.
        var fileName: String
        /// The campaign's unique-impressions rows.
        var totals: [UniqueImpressionsRow]
        /// The campaign in the control report, if an experiment.
        var experiment: ControlCampaign?
        /// The campaign's findings.
        var findings: [AnomalyFinding]
    }

    /// The run's id.
    var runID: Int64
    /// What the run covered.
    var scope: ReportScope
    /// The maturity cut-off.
    var asOf: Date
    /// The campaigns, in order.
    var entries: [Entry]
    /// Every finding of the run, most severe first.
    var findings: [AnomalyFinding]

    /// The page as a self-contained HTML document.
    func render() -> String {
        let apps = Dictionary(grouping: entries, by: \.key.app).sorted { $0.key < $1.key }
        let appList = "<ul>" + apps.map { "<li>\(HTMLPage.escape($0.key)): \(ReportText.count($0.value.count, "campaign").dropLast())</li>" }.joined() + "</ul>\n"
        let sections = [
            HTMLPage.Section(heading: "Apps", body: apps.isEmpty ? "<p>No campaigns in the range.</p>\n" : appList),
            HTMLPage.Section(heading: "Campaigns", body: entries.isEmpty ? "<p>No campaigns in the range.</p>\n" : campaignTable),
            HTMLPage.Section(heading: "Findings by severity", body: "<p class=\"severity-counts\">\(FindingsTable.counts(findings)).</p>\n"
                + (findings.isEmpty ? "" : FindingsTable.html(findings))),
        ]
        return HTMLPage.runPage(title: "Report run \(runID)", scope: scope, asOf: asOf, sections: sections)
    }

    private var campaignTable: String {
        var html = "<table class=\"campaigns\"><thead><tr><th>app</th><th>campaign</th><th>impressions</th>"
            + "<th>unique impressions</th><th>clicks</th><th>dismissals</th><th>sample ratio</th><th>findings</th>"
            + "</tr></thead><tbody>\n"
        for entry in entries {
            let sum = { (value: (UniqueImpressionsRow) -> Int64) in String(entry.totals.map(value).reduce(0, +)) }
            let srm = entry.experiment.map { campaign in
                campaign.sampleRatio.check.map { $0.mismatch ? "mismatch" : "fits" } ?? "not checked"
            } ?? "–"
            let worst = entry.findings.map(\.severity).max()
            html += "<tr><td>\(HTMLPage.escape(entry.key.app))</td>"
            html += "<td><a href=\"\(HTMLPage.escape(entry.fileName))\">\(HTMLPage.escape(entry.key.campaignID))</a></td>"
            html += [sum(\.impressions), sum(\.uniqueImpressions), sum(\.clicks), sum(\.dismissals)]
                .map { "<td class=\"number\">\($0)</td>" }.joined()
            html += "<td>\(srm)</td><td>\(entry.findings.count)\(worst.map { " " + FindingsTable.badge($0) } ?? "")</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }
}
