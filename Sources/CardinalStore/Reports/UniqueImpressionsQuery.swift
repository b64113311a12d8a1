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
            from \(UniqueImpressionsRow.resultColumns.objectName)(app => \(scope.app), from_date => \(scope.from), to_date => \(scope.to),
                                             include_test => \(scope.includeTest), campaign => \(scope.campaign),
                                             by => \(breakdown?.rawValue))
            """
        ).map(UniqueImpressionsRow.columns.decodeResult)
    }
}
