@testable import CardinalReports
import CardinalStore
import Foundation
import Testing

@Suite struct ReportRunPagesTests {
    private static let scope = ReportScope(from: ReportDate("2026-11-01")!, to: ReportDate("2026-11-03")!)
    private static let thirtyDays = ReportScope(from: ReportDate("2026-11-01")!, to: ReportDate("2026-11-30")!)
    private static let asOf = Date(timeIntervalSince1970: 1_796_000_000)
    private static let hostile = "<b>\"spring\" & 'sale'</b>/../x"

    private static func row(_ campaign: String, _ variant: String?, day: String?, impressions: Int64, clicks: Int64) -> UniqueImpressionsRow {
        UniqueImpressionsRow(
            app: "shop", campaignID: campaign, variantID: variant, channel: "content_card", breakdown: day,
            impressions: impressions, uniqueImpressions: impressions, uniqueDailyImpressions: impressions,
            uniqueRecipients: impressions, clicks: clicks, uniqueClicks: clicks, dismissals: 1, uniqueDismissals: 1,
            clickRate: nil, uniqueClickRate: nil, dismissalRate: nil, uniqueDismissalRate: nil
        )
    }

    private static func arm(_ campaign: String, _ variant: String?, control: Bool, users: Int, converters: Int) -> ControlArmRow {
        ControlArmRow(app: "shop", campaignID: campaign, conversionEvent: "purchase", window: .standard, variantID: variant,
                      control: control, users: users, converters: converters, exposedUsers: users, usersInSeveralArms: 0)
    }

    private static func finding(_ severity: AnomalySeverity, campaign: String) -> AnomalyFinding {
        AnomalyFinding(kind: .usersInSeveralArms, severity: severity, app: "shop", campaignID: campaign,
                       evidence: AnomalyEvidence([]), likelyCause: "cause")
    }

    /// `campaigns` experiments with `variants` variants (v1, v2, …) and a control arm over the days of `scope`;
    /// the first campaign is named `hostile`.
    private static func run(
        campaigns: Int, variants: Int = 2, scope: ReportScope = scope
    ) -> (ScheduledReportRun, [UniqueImpressionsRow]) {
        let variantIDs = (1...variants).map { "v\($0)" }
        let days = (0...(scope.to.daysSinceEpoch - scope.from.daysSinceEpoch)).map { scope.from.adding(days: $0).description }
        let names = [hostile] + (1..<max(1, campaigns)).map { "campaign-\($0)" }
        let totals = names.flatMap { name in variantIDs.map { row(name, $0, day: nil, impressions: 300, clicks: 30) } }
        let daily = names.flatMap { name in
            days.flatMap { day in
                variantIDs.map { row(name, $0, day: day, impressions: 100, clicks: 10) }
            }
        }
        let arms = names.flatMap { name in
            [arm(name, nil, control: true, users: 300, converters: 30)]
                + variantIDs.enumerated().map { arm(name, $1, control: false, users: 300, converters: [45, 24][$0 % 2]) }
        }
        // Every arm weighs the same; the check needs a known split (issue 12).
        let split = try? ExpectedSplit(arms: (["control"] + variantIDs).map { ExpectedSplit.Arm(name: $0, weight: 1) })
        let splits = Dictionary(uniqueKeysWithValues: names.map { (ControlReport.CampaignKey(app: "shop", campaignID: $0), split) })
        let control = ControlReport(
            scope: scope, asOf: asOf,
            allCampaigns: ControlReport.build(rows: arms, splits: splits.compactMapValues { $0 }, asOf: asOf)
        )
        let findings = [finding(.info, campaign: hostile), finding(.critical, campaign: hostile), finding(.warning, campaign: "campaign-1")]
        let run = ScheduledReportRun(
            runID: 7, uniqueImpressions: UniqueImpressionsReport(scope: scope, breakdown: nil, rows: totals),
            anomalies: AnomaliesReport(scope: scope, findings: findings), control: control
        )
        return (run, daily)
    }

    /// The page of the campaign named `hostile`, the first in campaign order (`<` sorts before letters).
    private static func hostilePage(_ pages: ReportRunPages) throws -> String {
        try #require(pages.files.first { $0.name.hasPrefix("campaign-0001-") }).html
    }

    private static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test("An experiment's page charts its cumulative lift under the comparison; a page without the series says so")
    func cumulativeLift() throws {
        let (run, daily) = Self.run(campaigns: 2)
        let key = ControlReport.CampaignKey(app: "shop", campaignID: Self.hostile)
        let rows = [nil, "v1", "v2"].map {
            ControlArmDayRow(day: Self.scope.from, variantID: $0, control: $0 == nil, users: 300,
                             converters: [nil: 30, "v1": 45, "v2": 24][$0] ?? 0)
        }
        let pages = ReportRunPages(run: run, daily: daily, lifts: [key: try #require(CumulativeLift(rows: rows, from: Self.scope.from))])
        let page = try Self.hostilePage(pages)
        #expect(page.contains("<h2>Cumulative lift against control</h2>"))
        #expect(Self.count("<svg class=\"chart line-chart lift-chart\"", in: page) == 2)
        // v1: 45/300 against 30/300, a lift of 50 %, over the one day of the range.
        #expect(page.contains("<tr><td>2026-11-01</td><td class=\"number\">50%</td>"))
        let other = try #require(pages.files.first { $0.name.hasPrefix("campaign-0002-") }).html
        #expect(other.contains("No lift to follow"))
    }

    @Test("A run gives an index and one page per campaign, linked from the index")
    func files() throws {
        let (run, daily) = Self.run(campaigns: 2)
        let pages = ReportRunPages(run: run, daily: daily)
        #expect(pages.files.map(\.name) == ["index.html", "campaign-0001-shop-b-spring-sale-b-x.html",
                                            "campaign-0002-shop-campaign-1.html"])
        let index = try #require(pages.files.first).html
        #expect(index.contains("<title>Report run 7</title>"))
        #expect(index.contains("href=\"campaign-0001-shop-b-spring-sale-b-x.html\""))
        #expect(index.contains("1 critical, 1 warning, 1 info"))
    }

    @Test("A campaign page has four daily charts with a series per variant and one forest-plot row per variant")
    func campaignPage() throws {
        let (run, daily) = Self.run(campaigns: 2)
        let page = try Self.hostilePage(ReportRunPages(run: run, daily: daily))
        #expect(Self.count("<svg class=\"chart line-chart\"", in: page) == 4)
        #expect(Self.count("<g class=\"series\"", in: page) == 4 * 2)
        let forest = try #require(page.firstMatch(of: /<svg class="chart forest-plot"[\s\S]*?<\/svg>/)).output
        #expect(Self.count("<g class=\"interval-row\"", in: String(forest)) == 2)
        #expect(Self.count("<svg class=\"chart rate-plot\"", in: page) == 2)
        #expect(page.contains("Sample ratio: the arm sizes (control 300, v1 300, v2 300) fit the configured split control=1,v1=1,v2=1"))
        // Every day's point: 100 impressions per variant each day.
        #expect(page.contains("<tr><td>2026-11-02</td><td class=\"number\">100</td><td class=\"number\">100</td></tr>"))
    }

    @Test("Findings are listed most severe first, each row classed by its severity")
    func severityClasses() throws {
        let (run, daily) = Self.run(campaigns: 1)
        let page = try Self.hostilePage(ReportRunPages(run: run, daily: daily))
        let classes = page.matches(of: /<tr class="severity-(\w+)">/).map { String($0.1) }
        #expect(classes == ["critical", "info"])
    }

    @Test("The campaign id, user data, is escaped everywhere and cannot leave the output directory")
    func escaping() throws {
        let (run, daily) = Self.run(campaigns: 1)
        let pages = ReportRunPages(run: run, daily: daily)
        for file in pages.files {
            #expect(!file.html.contains("<b>"))
            #expect(!file.name.contains("/"))
        }
        #expect(try Self.hostilePage(pages).contains("&lt;b&gt;&quot;spring&quot; &amp; &#39;sale&#39;&lt;/b&gt;/../x"))
    }

    @Test("--format html of the control and anomalies reports draws the same forest plot and severity rows")
    func reportFormats() {
        let (run, _) = Self.run(campaigns: 2)
        let control = run.control.render(.html)
        #expect(Self.count("<svg class=\"chart forest-plot\"", in: control) == 2)
        #expect(Self.count("<g class=\"interval-row\"", in: control) == 2 * 2)
        #expect(!control.contains("<b>"))
        let anomalies = run.anomalies.render(.html)
        #expect(anomalies.matches(of: /<tr class="severity-(\w+)">/).map { String($0.1) } == ["critical", "warning", "info"])
    }

    @Test("200 campaigns of 30 days and 8 variants render in well under a minute, each page under 250 KB (order-of-magnitude guard)")
    func largeRun() throws {
        let (run, daily) = Self.run(campaigns: 200, variants: 8, scope: Self.thirtyDays)
        let clock = ContinuousClock()
        var pages: ReportRunPages?
        let elapsed = clock.measure { pages = ReportRunPages(run: run, daily: daily) }
        let files = try #require(pages).files
        #expect(files.count == 201)
        let largest = files.map(\.html.utf8.count).max() ?? 0
        let total = files.map(\.html.utf8.count).reduce(0, +)
        let campaignPage = files.last.map(\.html.utf8.count) ?? 0
        print("report pages: 200 campaigns in \(elapsed), index \(files[0].html.utf8.count) bytes, a campaign page \(campaignPage) bytes, largest \(largest), total \(total)")
        #expect(elapsed < .seconds(60))
        #expect(largest < 250_000)
    }
}
