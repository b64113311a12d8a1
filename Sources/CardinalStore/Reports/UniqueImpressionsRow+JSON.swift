public import CardinalCore

extension UniqueImpressionsRow {
    /// The twelve figures of the row as JSON members, under the names of the JSON contract and of the
    /// `report_unique_impressions` columns alike, so the CLI's output and the stored run cannot drift apart.
    public var figureMembers: [(String, JSONValue)] {
        [
            ("impressions", ReportJSON.integer(impressions)),
            ("unique_impressions", ReportJSON.integer(uniqueImpressions)),
            ("unique_daily_impressions", ReportJSON.integer(uniqueDailyImpressions)),
            ("unique_recipients", ReportJSON.integer(uniqueRecipients)),
            ("clicks", ReportJSON.integer(clicks)),
            ("unique_clicks", ReportJSON.integer(uniqueClicks)),
            ("dismissals", ReportJSON.integer(dismissals)),
            ("unique_dismissals", ReportJSON.integer(uniqueDismissals)),
            ("click_rate", ReportJSON.number(clickRate)),
            ("unique_click_rate", ReportJSON.number(uniqueClickRate)),
            ("dismissal_rate", ReportJSON.number(dismissalRate)),
            ("unique_dismissal_rate", ReportJSON.number(uniqueDismissalRate)),
        ]
    }
}
