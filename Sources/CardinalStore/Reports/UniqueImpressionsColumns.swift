extension UniqueImpressionsRow {
    /// The columns of the unique-impressions report, in the order of the SQL select, the JSON members and the
    /// table: the one place where a column's SQL result name, JSON name and `report_unique_impressions` column
    /// are written down. `canvas_id` is not in the JSON contract; the breakdown is not stored (runs have none).
    /// The push columns come last, so that readers of the older columns by position keep working.
    public static let columns = ReportColumns<UniqueImpressionsRow>([
        .text("app", result: "app_name", \.app),
        .text("campaign_id", \.campaignID),
        .text("canvas_id", inJSON: false, \.canvasID),
        .text("canvas_step_id", \.canvasStepID),
        .text("variant_id", \.variantID),
        .text("channel", \.channel),
        .text("breakdown", stored: .some(nil), kind: .breakdown, \.breakdown),
        .count("impressions", \.impressions),
        .count("unique_impressions", \.uniqueImpressions),
        .count("unique_daily_impressions", \.uniqueDailyImpressions),
        .count("unique_recipients", \.uniqueRecipients),
        .count("clicks", \.clicks),
        .count("unique_clicks", \.uniqueClicks),
        .count("dismissals", \.dismissals),
        .count("unique_dismissals", \.uniqueDismissals),
        .rate("click_rate", \.clickRate),
        .rate("unique_click_rate", \.uniqueClickRate),
        .rate("dismissal_rate", \.dismissalRate),
        .rate("unique_dismissal_rate", \.uniqueDismissalRate),
        .count("direct_opens", \.directOpens),
        .count("unique_direct_opens", \.uniqueDirectOpens),
        .count("influenced_opens", \.influencedOpens),
        .count("total_opens", \.totalOpens),
        .rate("direct_open_rate", \.directOpenRate),
        .rate("total_open_rate", \.totalOpenRate),
        .count("deliveries", \.deliveries),
        .rate("delivery_rate", \.deliveryRate),
    ], blank: UniqueImpressionsRow(
        app: "", campaignID: nil, variantID: nil, channel: "", impressions: 0, uniqueImpressions: 0,
        uniqueDailyImpressions: 0, uniqueRecipients: 0, clicks: 0, uniqueClicks: 0, dismissals: 0,
        uniqueDismissals: 0, clickRate: nil, uniqueClickRate: nil, dismissalRate: nil, uniqueDismissalRate: nil
    ))

    /// `cardinal.unique_impressions`, whose result ``UniqueImpressionsQuery`` reads through ``columns``.
    public static let resultColumns = columns.result(of: "cardinal.unique_impressions")

    /// `cardinal.report_unique_impressions`, the stored run's table, which ``ReportRunStore`` writes and reads.
    public static let storedColumns = columns.storedTable("cardinal.report_unique_impressions")
}
