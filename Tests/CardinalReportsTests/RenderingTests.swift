import CardinalCore
import CardinalReports
import CardinalStore
import Foundation
import Testing

@Suite struct RenderingTests {
    private static let row = UniqueImpressionsRow(
        app: "shop", campaignID: "c1", canvasID: nil, canvasStepID: nil, variantID: "v1", channel: "content_card",
        breakdown: "2026-11-03", impressions: 4, uniqueImpressions: 3, uniqueDailyImpressions: 3, uniqueRecipients: 3,
        clicks: 1, uniqueClicks: 1, dismissals: 0, uniqueDismissals: 0, clickRate: 0.25, uniqueClickRate: 1.0 / 3,
        dismissalRate: 0, uniqueDismissalRate: nil
    )
    private static let scope = ReportScope(
        app: "shop", from: ReportDate("2026-11-01")!, to: ReportDate("2026-11-30")!
    )

    @Test("Report numbers are JSON numbers without a needless fraction, and undefined values are null")
    func numbers() {
        #expect(ReportJSON.number(3) == .number("3"))
        #expect(ReportJSON.number(0.25) == .number("0.25"))
        #expect(ReportJSON.number(1.0 / 3) == .number("0.3333333333333333"))
        #expect(ReportJSON.number(1e-300) == .number("1e-300"))
        #expect(ReportJSON.number(nil) == .null)
        #expect(ReportJSON.number(.nan) == .null)
        #expect(ReportJSON.number(.infinity) == .null)
        #expect(ReportJSON.integer(Int64(12)) == .number("12"))
    }

    @Test("The unique-impressions JSON names the breakdown after --by and writes rates as numbers or null")
    func uniqueImpressionsJSON() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: .day, rows: [Self.row])
        #expect(report.render(.json) == """
            {"report":"unique-impressions","from":"2026-11-01","to":"2026-11-30","rows":[{"app":"shop",\
            "campaign_id":"c1","canvas_step_id":null,"variant_id":"v1","channel":"content_card",\
            "day":"2026-11-03","impressions":4,"unique_impressions":3,"unique_daily_impressions":3,\
            "unique_recipients":3,"clicks":1,"unique_clicks":1,"dismissals":0,"unique_dismissals":0,\
            "click_rate":0.25,"unique_click_rate":0.3333333333333333,"dismissal_rate":0,\
            "unique_dismissal_rate":null,"direct_opens":null,"unique_direct_opens":null,"influenced_opens":null,\
            "total_opens":null,"direct_open_rate":null,"total_open_rate":null,"deliveries":null,\
            "delivery_rate":null}],"conversions":[]}

            """)
    }

    @Test("A push row's JSON carries its opens, deliveries and their rates at the end of the row")
    func pushRowJSON() {
        let push = UniqueImpressionsRow(
            app: "shop", campaignID: "p1", variantID: nil, channel: "push", impressions: 0, uniqueImpressions: 0,
            uniqueDailyImpressions: 0, uniqueRecipients: 5, clicks: 2, uniqueClicks: 1, dismissals: 0,
            uniqueDismissals: 0, clickRate: nil, uniqueClickRate: nil, dismissalRate: nil, uniqueDismissalRate: nil,
            push: PushColumns(directOpens: 2, uniqueDirectOpens: 1, influencedOpens: 1, totalOpens: 2,
                              directOpenRate: 0.2, totalOpenRate: 0.4, deliveries: 4, deliveryRate: 0.8)
        )
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [push])
        #expect(report.render(.json).hasSuffix("""
            "unique_dismissal_rate":null,"direct_opens":2,"unique_direct_opens":1,"influenced_opens":1,\
            "total_opens":2,"direct_open_rate":0.2,"total_open_rate":0.4,"deliveries":4,"delivery_rate":0.8}],\
            "conversions":[]}

            """))
    }

    @Test("CSV keeps every digit and a header row; the terminal table rounds rates to 4 decimals")
    func uniqueImpressionsCSVAndTable() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [Self.row])
        let csv = report.render(.csv).split(separator: "\n")
        #expect(csv.count == 2)
        #expect(csv[0].hasPrefix("app,campaign_id,canvas_id,canvas_step_id,variant_id,channel,impressions,"))
        #expect(csv[1] == "shop,c1,,,v1,content_card,4,3,3,3,1,1,0,0,0.25,0.3333333333333333,0,,,,,,,,,")
        let table = report.render(.table)
        #expect(table.contains("0.3333"))
        #expect(!table.contains("0.33333"))
    }

    @Test("CSV puts a ' before cells a spreadsheet would run as formulas, never before numbers")
    func csvFormulaCellsAreDefused() {
        let table = TextTable(header: ["campaign_id", "variant_id", "difference"], rows: [
            ["=HYPERLINK(\"http://x\",\"y\")", "+1", "-0.0123"],
            ["@SUM(A1)", "-2+3", "-1.5e-05"],
            ["\tcmd", "\rcmd", "4"],
            ["spring", "a-b", nil],
        ])
        #expect(table.renderCSV() == """
            campaign_id,variant_id,difference
            "'=HYPERLINK(""http://x"",""y"")",'+1,-0.0123
            '@SUM(A1),'-2+3,-1.5e-05
            '\tcmd,"'\rcmd",4
            spring,a-b,

            """)
    }

    @Test("The terminal table shows control characters in cells escaped, so no cell breaks a row")
    func tableEscapesControlCharacters() {
        let table = TextTable(header: ["campaign_id", "n"], rows: [["a\nb\rc\u{1B}[2Jd\te", "1"]])
        let text = table.renderAligned()
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 4)
        #expect(text.contains(#"a\nb\rc\u{1b}[2Jd\te"#))
        #expect(!text.unicodeScalars.contains { $0 == "\r" || $0 == "\u{1B}" || $0 == "\t" })
    }

    @Test("HTML is one self-contained page and escapes what it shows")
    func html() {
        var row = Self.row
        row.campaignID = "<script>&\"'"
        let page = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [row]).render(.html)
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("&lt;script&gt;&amp;&quot;&#39;"))
        #expect(!page.contains("<script>"))
        #expect(!page.contains("http"))
        #expect(page.hasSuffix("</html>\n"))
    }

    /// Campaign c1 with control 10/100 and v1 20/100 buying; signup, its second conversion event, 5/100 and 5/100.
    private static func controlWithSignup(canvas: Bool = false) -> ControlReport {
        let arms = [(nil as String?, true, 10), ("v1", false, 20)].map { variant, control, converters in
            ControlArmRow(app: "shop", campaignID: "c1", conversionEvent: "purchase", window: .standard,
                          variantID: variant, control: control, users: 100, converters: converters, exposedUsers: 100,
                          usersInSeveralArms: 0, isCanvas: canvas)
        }
        let signup = [(nil as String?, true), ("v1", false)].map { variant, control in
            ControlArmConversionRow(app: "shop", campaignID: "c1", ordinal: 2, conversionEvent: "signup",
                                    variantID: variant, control: control, users: 100, converters: 5)
        }
        var scope = Self.scope
        scope.canvas = canvas ? "c1" : nil
        return ControlReport(scope: scope, asOf: Date(timeIntervalSince1970: 1_800_000_000), allCampaigns:
            ControlReport.build(rows: arms, splits: [:], conversions: signup, asOf: Date(timeIntervalSince1970: 1_800_000_000)))
    }

    @Test("Further conversion events follow the primary's rows in the table and get a table of their own on the page")
    func controlFurtherConversions() throws {
        let report = Self.controlWithSignup()
        let csv = report.render(.csv).split(separator: "\n")
        // Header, control and v1 on purchase, control and v1 on signup.
        #expect(csv.count == 5)
        #expect(csv[1].hasPrefix("shop,c1,purchase,3d,control,100,10,0.1,"))
        #expect(csv[3].hasPrefix("shop,c1,signup,3d,control,100,5,0.05,"))
        // Equal rates on signup: difference 0, then the lift 0 with its interval.
        #expect(csv[4].hasPrefix("shop,c1,signup,3d,v1,100,5,0.05,0,"))
        let page = report.render(.html)
        #expect(page.contains("<h3>Conversion event signup"))
        #expect(page.components(separatedBy: "<table class=\"arms\">").count - 1 == 2)
        let json = try JSONValue.parse(report.render(.json))
        guard case .object(let document) = json, case .array(let campaigns)? = document["campaigns"],
              case .object(let campaign)? = campaigns.first
        else {
            Issue.record("no campaign in \(json.compactText)")
            return
        }
        #expect(campaign["campaign_id"] == .string("c1"))
        #expect(campaign["canvas_id"] == .null)
        // CUPED's window ends the campaign (null here: the arms were built without covariate sums).
        #expect(campaign.members.suffix(3).map(\.key) == ["canvas_id", "conversions", "cuped_window_days"])
        #expect(campaign["cuped_window_days"] == .null)
    }

    @Test("A canvas report names its id column canvas_id and its page sections Canvas")
    func controlCanvas() {
        let report = Self.controlWithSignup(canvas: true)
        #expect(report.render(.csv).hasPrefix("app,canvas_id,conversion_event,"))
        #expect(report.render(.html).contains("<h2>Canvas c1 (shop)</h2>"))
        #expect(report.render(.json).contains(#""campaign_id":null,"#))
        #expect(report.render(.json).contains(#""canvas_id":"c1","#))
    }

    @Test("Anomaly findings render with their evidence in every format")
    func anomalies() throws {
        let finding = AnomalyFinding(
            kind: .dismissalsExceedImpressions, severity: .critical, app: "shop", campaignID: "c1",
            channel: "content_card", platform: "ios", sdkVersion: "5.0", appVersion: nil,
            evidence: AnomalyEvidence([.init(name: "unique_impressions", value: 1), .init(name: "unique_dismissals", value: 3)]),
            likelyCause: "A custom UI, probably."
        )
        let report = AnomaliesReport(scope: Self.scope, findings: [finding])
        #expect(report.render(.json) == """
            {"report":"anomalies","findings":[{"kind":"dismissals_exceed_impressions","severity":"critical",\
            "app":"shop","campaign_id":"c1","canvas_id":null,"canvas_step_id":null,"channel":"content_card",\
            "platform":"ios","sdk_version":"5.0","app_version":null,\
            "evidence":{"unique_impressions":1,"unique_dismissals":3},"likely_cause":"A custom UI, probably."}]}

            """)
        #expect(report.render(.csv).contains("unique_impressions=1 unique_dismissals=3"))
        #expect(report.render(.html).contains("1 finding."))
    }

    @Test("A canvas step's finding names its canvas and step in every format, after the campaigns' findings")
    func canvasStepFinding() throws {
        let step = AnomalyFinding(
            kind: .clickWithoutImpression, severity: .critical, app: "shop", campaignID: nil, canvasID: "onboarding",
            canvasStepID: "welcome", channel: "in_app_message",
            evidence: AnomalyEvidence([.init(name: "users", value: 2)]), likelyCause: "A custom UI, probably."
        )
        let campaign = AnomalyFinding(
            kind: .clickWithoutImpression, severity: .critical, app: "shop", campaignID: "c1",
            channel: "in_app_message", evidence: AnomalyEvidence([.init(name: "users", value: 1)]),
            likelyCause: "A custom UI, probably."
        )
        let report = AnomaliesReport(scope: Self.scope, findings: [step, campaign])
        #expect(report.findings.map(\.campaignID) == ["c1", nil])
        let json = report.render(.json)
        #expect(json.contains(#""campaign_id":null,"canvas_id":"onboarding","canvas_step_id":"welcome""#))
        let csv = report.render(.csv).split(separator: "\n")
        #expect(csv[0].hasPrefix("severity,kind,app,campaign_id,canvas_id,canvas_step_id,channel,"))
        #expect(csv[2].hasPrefix("critical,click_without_impression,shop,,onboarding,welcome,in_app_message,"))
        let html = report.render(.html)
        #expect(html.contains("<th>campaign or canvas step</th>"))
        #expect(html.contains("<td>onboarding / welcome</td>"))
    }

    @Test("Findings of one kind are ordered by their group with a missing value last, as the SQL's NULLS LAST")
    func findingsOrderPutsMissingValuesLast() {
        func finding(platform: String?, sdk: String?) -> AnomalyFinding {
            AnomalyFinding(kind: .repeatedImpressions, severity: .warning, app: "shop", campaignID: "c1",
                           channel: "banner", platform: platform, sdkVersion: sdk, evidence: AnomalyEvidence([]),
                           likelyCause: "")
        }
        let report = AnomaliesReport(scope: Self.scope, findings: [
            finding(platform: nil, sdk: "5.0"), finding(platform: "ios", sdk: nil),
            finding(platform: "android", sdk: "5.0"), finding(platform: "ios", sdk: "5.0"),
        ])
        #expect(report.findings.map { [$0.platform, $0.sdkVersion] } == [
            ["android", "5.0"], ["ios", "5.0"], ["ios", nil], [nil, "5.0"],
        ])
    }

    @Test("Evidence is read from jsonb text, sorted by name, and anything but numbers is refused")
    func evidence() throws {
        let evidence = try AnomalyEvidence(jsonText: #"{"share": 0.5, "users": 2, "expected": null}"#)
        #expect(evidence.items.map(\.name) == ["expected", "share", "users"])
        #expect(evidence["share"] == 0.5)
        #expect(evidence["expected"] == nil)
        #expect(throws: ReportDecodingError.self) { try AnomalyEvidence(jsonText: #"{"users": "2"}"#) }
        #expect(throws: ReportDecodingError.self) { try AnomalyEvidence(jsonText: "[]") }
    }

    @Test("--fail-on anomalies trips on any finding, warning on warnings and worse, critical only on critical")
    func failThresholds() {
        func finding(_ severity: AnomalySeverity) -> AnomalyFinding {
            AnomalyFinding(kind: .usersInSeveralArms, severity: severity, app: "shop", campaignID: "c1",
                           evidence: AnomalyEvidence([]), likelyCause: "")
        }
        #expect(FailThreshold.anomalies.isTripped(by: [finding(.info)]))
        #expect(!FailThreshold.warning.isTripped(by: [finding(.info)]))
        #expect(FailThreshold.warning.isTripped(by: [finding(.info), finding(.warning)]))
        #expect(!FailThreshold.critical.isTripped(by: [finding(.warning)]))
        #expect(FailThreshold.critical.isTripped(by: [finding(.critical)]))
        #expect(!FailThreshold.anomalies.isTripped(by: []))
    }
}
