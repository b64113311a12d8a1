public import PostgresClient

/// Runs `cardinal.anomalies`, the same function psql users call, or one of its halves, and decodes the findings
/// by ``AnomalyFinding/columns``. The sample ratio mismatch findings are not among them: they come from the
/// control report.
public struct AnomaliesQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The findings, most severe first.
    /// - Throws: `PostgresError`; ``ReportDecodingError`` when a kind, severity or evidence is not one this
    ///   version knows (a database migrated past it).
    public func run(_ scope: ReportScope) throws -> [AnomalyFinding] {
        try findings(of: AnomalyFinding.resultColumns, scope)
    }

    /// The findings of one half of `cardinal.anomalies`, in no particular order.
    /// - Throws: as ``run(_:)``.
    public func run(_ scope: ReportScope, half: AnomaliesHalf) throws -> [AnomalyFinding] {
        try findings(of: half.resultColumns, scope)
    }

    private func findings(of function: SQLColumns, _ scope: ReportScope) throws -> [AnomalyFinding] {
        try connection.query(
            """
            select \(AnomalyFinding.columns.resultList)
            from \(function.objectName)(app => \(scope.app), from_date => \(scope.from), to_date => \(scope.to),
                             include_test => \(scope.includeTest), campaign => \(scope.campaign),
                             canvas => \(scope.canvas))
            """
        ).map(AnomalyFinding.columns.decodeResult)
    }
}
