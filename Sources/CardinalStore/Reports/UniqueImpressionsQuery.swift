public import PostgresClient

/// Runs `cardinal.unique_impressions`, the same function psql users call, and decodes its rows by
/// ``UniqueImpressionsRow/columns``.
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
            select \(UniqueImpressionsRow.columns.resultList)
            from cardinal.unique_impressions(app => $1, from_date => $2, to_date => $3, include_test => $4,
                                             campaign => $5, by => $6)
            """,
            [scope.app, scope.from, scope.to, scope.includeTest, scope.campaign, breakdown?.rawValue]
        ).map(UniqueImpressionsRow.columns.decodeResult)
    }
}
