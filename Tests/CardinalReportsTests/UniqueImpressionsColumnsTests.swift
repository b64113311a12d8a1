import CardinalReports
import CardinalStore
import Testing

/// The columns of the unique-impressions terminal table: a standard set that fits a terminal, `--columns`
/// and `--wide`; CSV and JSON keep every column.
@Suite struct UniqueImpressionsColumnsTests {
    private static let scope = ReportScope(app: "shop", from: ReportDate("2026-11-01")!, to: ReportDate("2026-11-30")!)

    private static func row(app: String = "shop", campaign: String? = "spring-sale",
                            canvasStep: String? = nil, channel: String = "in_app_message") -> UniqueImpressionsRow {
        UniqueImpressionsRow(
            app: app, campaignID: campaign, canvasID: canvasStep.map { _ in "onboarding" }, canvasStepID: canvasStep,
            variantID: "variant-b", channel: channel, breakdown: "2026-11-03", impressions: 1_234_567,
            uniqueImpressions: 987_654, uniqueDailyImpressions: 990_000, uniqueRecipients: 1_000_000, clicks: 123_456,
            uniqueClicks: 100_000, dismissals: 5000, uniqueDismissals: 4000, clickRate: 0.1, uniqueClickRate: 1.0 / 3,
            dismissalRate: 0.004, uniqueDismissalRate: 0.004)
    }

    private static func header(_ table: String) -> [String] {
        table.split(separator: "\n").first.map { $0.split(separator: " ").map(String.init) } ?? []
    }

    @Test("The standard table shows source, variant, channel, impressions, uniques, clicks and rates in 120 columns")
    func standardTableFitsATerminal() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [Self.row()])
        let byDay = UniqueImpressionsReport(scope: Self.scope, breakdown: .day, rows: [Self.row()])

        let table = report.render(.table)

        #expect(Self.header(table) == ["campaign_id", "variant_id", "channel", "impressions", "unique_impressions",
                                       "clicks", "click_rate", "unique_click_rate"])
        #expect(table.split(separator: "\n").allSatisfy { $0.count <= 120 }, "\(table)")
        #expect(Self.header(byDay.render(.table)).contains("day"), "the breakdown tells the rows apart")
    }

    @Test("The standard table adds the app when rows span apps, and the canvas step when a row has one")
    func standardTableAddsWhatTellsRowsApart() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [
            Self.row(), Self.row(app: "news", campaign: nil, canvasStep: "welcome-step-1"),
        ])

        #expect(Array(Self.header(report.render(.table)).prefix(4)) == ["app", "campaign_id", "canvas_step_id", "variant_id"])
    }

    @Test("--columns shows the named columns in the order given")
    func namedColumns() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: .day, rows: [Self.row()])

        let table = report.render(.table, columns: .named(["clicks", "day", "dismissal_rate"]))

        #expect(table == """
            clicks  day         dismissal_rate
            ------  ----------  --------------
            123456  2026-11-03          0.0040

            """)
    }

    @Test("--wide shows every column of the CSV, in the same order")
    func wideTableHasEveryColumn() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [Self.row()])

        let csvHeader = report.render(.csv).split(separator: "\n").first?.split(separator: ",").map(String.init)

        #expect(Self.header(report.render(.table, columns: .all)) == csvHeader)
        #expect(csvHeader?.count == UniqueImpressionsReport.columnNames(breakdown: nil).count)
    }

    @Test("CSV and JSON keep every column whatever the table's selection")
    func csvAndJSONIgnoreTheSelection() {
        let report = UniqueImpressionsReport(scope: Self.scope, breakdown: nil, rows: [Self.row()])

        #expect(report.render(.csv, columns: .named(["clicks"])) == report.render(.csv, columns: .all))
        #expect(report.render(.json, columns: .named(["clicks"])) == report.render(.json, columns: .all))
    }

    @Test("The names --columns accepts are the table headers, the breakdown under its own name")
    func columnNames() {
        #expect(UniqueImpressionsReport.columnNames(breakdown: .platform).contains("platform"))
        #expect(!UniqueImpressionsReport.columnNames(breakdown: nil).contains("breakdown"))
        #expect(UniqueImpressionsReport.columnNames(breakdown: nil).first == "app")
    }
}
