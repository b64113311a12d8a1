public import CardinalStore

/// The unique-impressions report: impressions, uniques, recipients, clicks and dismissals with their rates,
/// per app × campaign (or canvas step) × variant × channel, computed by `cardinal.unique_impressions`; and the
/// campaigns' conversions and revenue per variant and conversion event, by `cardinal.campaign_conversions`.
public struct UniqueImpressionsReport: Sendable, Equatable {
    /// What the report covers.
    public var scope: ReportScope
    /// The extra column, if any.
    public var breakdown: ReportBreakdown?
    /// The rows, in the SQL function's order.
    public var rows: [UniqueImpressionsRow]
    /// Conversions per campaign × variant × conversion event (never broken down), in the SQL function's order.
    public var conversions: [CampaignConversionRow]

    /// Creates a report from rows already computed.
    public init(
        scope: ReportScope, breakdown: ReportBreakdown?, rows: [UniqueImpressionsRow],
        conversions: [CampaignConversionRow] = []
    ) {
        self.scope = scope
        self.breakdown = breakdown
        self.rows = rows
        self.conversions = conversions
    }

    /// Computes the report.
    /// - Throws: `PostgresError`, e.g. SQLSTATE 22023 when `scope.from` is after `scope.to`.
    public static func run(
        session: ReportSession, scope: ReportScope, by breakdown: ReportBreakdown? = nil
    ) throws -> UniqueImpressionsReport {
        try session.inOneSnapshot {
            UniqueImpressionsReport(
                scope: scope,
                breakdown: breakdown,
                rows: try session.uniqueImpressions(scope, by: breakdown),
                conversions: try session.campaignConversions(scope)
            )
        }
    }
}
