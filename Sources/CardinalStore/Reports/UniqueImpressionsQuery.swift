public import PostgresClient

/// Runs `cardinal.unique_impressions`, the same function psql users call, and decodes its rows.
public struct UniqueImpressionsQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The report's rows, in the function's order.
    /// - Parameters:
    ///   - scope: App, campaign, report days and test events.
    ///   - breakdown: The extra column, or `nil` for one row per campaign × variant × channel.
    /// - Throws: `PostgresError`, e.g. SQLSTATE 22023 when `scope.from` is after `scope.to`.
    public func run(_ scope: ReportScope, by breakdown: ReportBreakdown? = nil) throws -> [UniqueImpressionsRow] {
        try connection.query(
            """
            select app_name, campaign_id, canvas_id, canvas_step_id, variant_id, channel, breakdown,
                   impressions, unique_impressions, unique_daily_impressions, unique_recipients,
                   clicks, unique_clicks, dismissals, unique_dismissals,
                   click_rate, unique_click_rate, dismissal_rate, unique_dismissal_rate
            from cardinal.unique_impressions(app => $1, from_date => $2, to_date => $3, include_test => $4,
                                             campaign => $5, by => $6)
            """,
            [scope.app, scope.from, scope.to, scope.includeTest, scope.campaign, breakdown?.rawValue]
        ).map { row in
            UniqueImpressionsRow(
                app: try row.decode(String.self, at: 0),
                campaignID: try row.decode(String?.self, at: 1),
                canvasID: try row.decode(String?.self, at: 2),
                canvasStepID: try row.decode(String?.self, at: 3),
                variantID: try row.decode(String?.self, at: 4),
                channel: try row.decode(String.self, at: 5),
                breakdown: try row.decode(String?.self, at: 6),
                impressions: try row.decode(Int64.self, at: 7),
                uniqueImpressions: try row.decode(Int64.self, at: 8),
                uniqueDailyImpressions: try row.decode(Int64.self, at: 9),
                uniqueRecipients: try row.decode(Int64.self, at: 10),
                clicks: try row.decode(Int64.self, at: 11),
                uniqueClicks: try row.decode(Int64.self, at: 12),
                dismissals: try row.decode(Int64.self, at: 13),
                uniqueDismissals: try row.decode(Int64.self, at: 14),
                clickRate: try row.decode(Double?.self, at: 15),
                uniqueClickRate: try row.decode(Double?.self, at: 16),
                dismissalRate: try row.decode(Double?.self, at: 17),
                uniqueDismissalRate: try row.decode(Double?.self, at: 18)
            )
        }
    }
}
