public import CardinalStore
import Foundation

/// The pages of a report run (`cardinal report run --html DIR`): `index.html` (apps, campaigns, findings by
/// severity, links) and one self-contained page per campaign.
public struct ReportRunPages: Sendable {
    /// One page to write.
    public struct File: Sendable, Equatable {
        /// The file name, safe on every file system whatever the campaign id holds.
        public var name: String
        /// The HTML document.
        public var html: String
    }

    /// The pages, `index.html` first.
    public var files: [File]

    /// Builds the pages of `run`.
    /// - Parameters:
    ///   - run: The stored run.
    ///   - daily: The run's unique-impressions rows broken down by day (the run stores totals only).
    ///   - lifts: The experiments' lift day by day (``CumulativeLift/ofCampaigns(in:session:)`` of the run's
    ///     control report), which the run does not store either.
    public init(run: ScheduledReportRun, daily: [UniqueImpressionsRow],
                lifts: [ControlReport.CampaignKey: CumulativeLift] = [:]) {
        let campaigns = Self.campaignKeys(run)
        let experiments = Dictionary(run.control.allCampaigns.map { (ControlReport.CampaignKey(app: $0.app, campaignID: $0.campaignID), $0) },
                                     uniquingKeysWith: { first, _ in first })
        let totals = Dictionary(grouping: run.uniqueImpressions.rows.filter { $0.campaignID != nil }) {
            ControlReport.CampaignKey(app: $0.app, campaignID: $0.campaignID ?? "")
        }
        let days = Dictionary(grouping: daily.filter { $0.campaignID != nil }) {
            ControlReport.CampaignKey(app: $0.app, campaignID: $0.campaignID ?? "")
        }
        let findings = Dictionary(grouping: run.anomalies.findings.filter { $0.campaignID != nil }) {
            ControlReport.CampaignKey(app: $0.app, campaignID: $0.campaignID ?? "")
        }
        var entries: [RunIndexPage.Entry] = []
        var pages: [File] = []
        for (index, key) in campaigns.enumerated() {
            let name = Self.fileName(index: index, key: key)
            let experiment = experiments[key].flatMap { $0.isControlExperiment ? $0 : nil }
            let page = CampaignPage(
                app: key.app, campaignID: key.campaignID, scope: run.control.scope, asOf: run.control.asOf,
                totals: totals[key] ?? [], daily: days[key] ?? [], experiment: experiment, lift: lifts[key],
                findings: findings[key] ?? [], indexLink: "index.html"
            )
            pages.append(File(name: name, html: page.render()))
            entries.append(RunIndexPage.Entry(key: key, fileName: name, totals: totals[key] ?? [],
                                              experiment: experiment, findings: findings[key] ?? []))
        }
        let index = RunIndexPage(runID: run.runID, scope: run.control.scope, asOf: run.control.asOf,
                                 entries: entries, findings: run.anomalies.findings)
        files = [File(name: "index.html", html: index.render())] + pages
    }

    /// Every campaign the run saw, in app then campaign order: with impressions, in the control report, or
    /// named by a finding.
    private static func campaignKeys(_ run: ScheduledReportRun) -> [ControlReport.CampaignKey] {
        var keys = Set<ControlReport.CampaignKey>()
        for row in run.uniqueImpressions.rows {
            if let campaign = row.campaignID {
                keys.insert(ControlReport.CampaignKey(app: row.app, campaignID: campaign))
            }
        }
        for campaign in run.control.allCampaigns {
            keys.insert(ControlReport.CampaignKey(app: campaign.app, campaignID: campaign.campaignID))
        }
        for finding in run.anomalies.findings {
            if let campaign = finding.campaignID {
                keys.insert(ControlReport.CampaignKey(app: finding.app, campaignID: campaign))
            }
        }
        return keys.sorted { ($0.app, $0.campaignID) < ($1.app, $1.campaignID) }
    }

    /// `campaign-0007-shop-spring-sale.html`: a number that keeps names unique, then the app and campaign
    /// reduced to ASCII letters, digits and dashes (at most 40), so that a campaign id holding `../` or a
    /// NUL-free oddity cannot escape the directory.
    static func fileName(index: Int, key: ControlReport.CampaignKey) -> String {
        let slug = "\(key.app)-\(key.campaignID)".lowercased().unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)) ? String(scalar) : "-"
        }
        .joined()
        .split(separator: "-", omittingEmptySubsequences: true)
        .joined(separator: "-")
        let number = String(index + 1)
        let padded = String(repeating: "0", count: max(0, 4 - number.count)) + number
        return "campaign-\(padded)-\(slug.prefix(40)).html"
    }
}
