import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import Testing

@Suite struct EmptyReportRenderingTests {
    private static let scope = ReportScope(
        app: "shop", campaign: "spring", from: ReportDate("2026-11-01")!, to: ReportDate("2026-11-30")!
    )
    private static let everything = ReportScope(
        from: ReportDate("2026-11-01")!, to: ReportDate("2026-11-30")!, includeTest: true
    )
    private static let asOf = Date(timeIntervalSince1970: 1_796_000_000)

    @Test("An empty unique-impressions table says there are no rows for the app, campaign and days")
    func uniqueImpressionsTable() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [])
        #expect(report.render(.table) == "No rows for app shop, campaign spring, 2026-11-01 to 2026-11-30.\n")
        let unscoped = UniqueImpressionsReport(scope: Self.everything, breakdown: .day, rows: [])
        #expect(unscoped.render(.table) == """
            No rows for every app, every campaign, 2026-11-01 to 2026-11-30, test events included.

            """)
    }

    @Test("An empty anomalies table says there are no findings for the scope")
    func anomaliesTable() {
        let report = AnomaliesReport(scope: Self.scope, findings: [])
        #expect(report.render(.table) == "No findings for app shop, campaign spring, 2026-11-01 to 2026-11-30.\n")
    }

    @Test("An empty control table says there are no campaigns to compare for the scope")
    func controlTable() {
        let report = ControlReport(scope: Self.scope, asOf: Self.asOf, allCampaigns: [])
        #expect(report.render(.table) == """
            No campaigns with a conversion event or a control arm for app shop, campaign spring, 2026-11-01 to \
            2026-11-30.

            """)
    }

    @Test("Empty reports keep the CSV header alone and the JSON structure with empty arrays")
    func csvAndJSON() {
        let unique = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [])
        let anomalies = AnomaliesReport(scope: Self.scope, findings: [])
        let control = ControlReport(scope: Self.scope, asOf: Self.asOf, allCampaigns: [])
        for csv in [unique.render(.csv), anomalies.render(.csv), control.render(.csv)] {
            #expect(csv.split(separator: "\n").count == 1)
            #expect(!csv.contains("No "))
        }
        #expect(csv(unique).hasPrefix("app,campaign_id,canvas_id,"))
        #expect(unique.render(.json) == #"{"report":"unique-impressions","from":"2026-11-01","to":"2026-11-30","rows":[],"conversions":[]}"# + "\n")
        #expect(anomalies.render(.json) == #"{"report":"anomalies","findings":[]}"# + "\n")
        #expect(control.render(.json) == #"{"report":"control","campaigns":[]}"# + "\n")
    }

    @Test("An empty report's HTML page says so in a note instead of showing an empty table")
    func html() {
        let covered = "app shop, campaign spring, 2026-11-01 to 2026-11-30."
        let pages = [
            (UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: []).render(.html), "No rows for"),
            (AnomaliesReport(scope: Self.scope, findings: []).render(.html), "No findings for"),
            (
                ControlReport(scope: Self.scope, asOf: Self.asOf, allCampaigns: []).render(.html),
                "No campaigns with a conversion event or a control arm for"
            ),
        ]
        for (page, sentence) in pages {
            #expect(page.contains("<p class=\"note\">\(sentence) \(covered)</p>"))
            #expect(!page.contains("<table>"))
            #expect(page.hasSuffix("</html>\n"))
        }
    }

    private func csv(_ report: UniqueImpressionsReport) -> String {
        report.render(.csv)
    }
}
