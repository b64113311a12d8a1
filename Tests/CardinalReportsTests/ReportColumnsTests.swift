import CardinalCore
import CardinalStore
import Testing

@Suite struct ReportColumnsTests {
    private static let columns = UniqueImpressionsRow.columns.all

    @Test("The app column is app in JSON and tables but app_name in the SQL result and the stored run")
    func appNames() throws {
        let app = try #require(Self.columns.first)
        #expect(app.name == "app")
        #expect(app.resultName == "app_name")
        #expect(app.storedName == "app_name")
    }

    @Test("The unique-impressions JSON members follow the column list: no canvas_id, the breakdown named after --by")
    func jsonMembers() {
        let row = UniqueImpressionsRow(
            app: "shop", campaignID: "c1", canvasID: "k", canvasStepID: nil, variantID: nil, channel: "push",
            breakdown: "ios", impressions: 1, uniqueImpressions: 1, uniqueDailyImpressions: 1, uniqueRecipients: 1,
            clicks: 0, uniqueClicks: 0, dismissals: 0, uniqueDismissals: 0, clickRate: 0, uniqueClickRate: 0,
            dismissalRate: 0, uniqueDismissalRate: 0
        )
        let figures = [
            "impressions", "unique_impressions", "unique_daily_impressions", "unique_recipients", "clicks",
            "unique_clicks", "dismissals", "unique_dismissals", "click_rate", "unique_click_rate", "dismissal_rate",
            "unique_dismissal_rate", "direct_opens", "unique_direct_opens", "influenced_opens", "total_opens",
            "direct_open_rate", "total_open_rate", "deliveries", "delivery_rate",
        ]
        let keys = ["app", "campaign_id", "canvas_step_id", "variant_id", "channel"]
        let members = UniqueImpressionsRow.columns
        #expect(members.jsonMembers(of: row, breakdown: nil).map(\.0) == keys + figures)
        #expect(members.jsonMembers(of: row, breakdown: .platform).map(\.0) == keys + ["platform"] + figures)
        #expect(members.jsonMembers(of: row, breakdown: .platform).first { $0.0 == "platform" }?.1 == .string("ios"))
    }

    @Test("Stored runs keep every unique-impressions column but the breakdown, under the table's names")
    func storedNames() {
        #expect(UniqueImpressionsRow.columns.stored.compactMap(\.storedName) == [
            "app_name", "campaign_id", "canvas_id", "canvas_step_id", "variant_id", "channel", "impressions",
            "unique_impressions", "unique_daily_impressions", "unique_recipients", "clicks", "unique_clicks",
            "dismissals", "unique_dismissals", "click_rate", "unique_click_rate", "dismissal_rate",
            "unique_dismissal_rate", "direct_opens", "unique_direct_opens", "influenced_opens", "total_opens",
            "direct_open_rate", "total_open_rate", "deliveries", "delivery_rate",
        ])
        #expect(Self.columns.filter { $0.storedName == nil }.map(\.name) == ["breakdown"])
    }

    @Test("Anomaly findings are kind and severity first in JSON and stored under app_name")
    func anomalyNames() {
        let columns = AnomalyFinding.columns
        #expect(columns.all.map(\.name) == [
            "kind", "severity", "app", "campaign_id", "canvas_id", "canvas_step_id", "channel", "platform",
            "sdk_version", "app_version", "evidence", "likely_cause",
        ])
        #expect(columns.stored.compactMap(\.storedName)[2] == "app_name")
    }
}
