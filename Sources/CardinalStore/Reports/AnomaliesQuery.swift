public import PostgresClient

/// Runs `cardinal.anomalies`, the same function psql users call, and decodes its findings. The sample ratio
/// mismatch findings are not among them: they come from the control report.
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
        try connection.query(
            """
            select kind, severity, app_name, campaign_id, channel, platform, sdk_version, app_version,
                   evidence, likely_cause
            from cardinal.anomalies(app => $1, from_date => $2, to_date => $3, include_test => $4, campaign => $5)
            """,
            [scope.app, scope.from, scope.to, scope.includeTest, scope.campaign]
        ).map { row in
            let kindText = try row.decode(String.self, at: 0)
            let severityText = try row.decode(String.self, at: 1)
            guard let kind = AnomalyKind(rawValue: kindText) else {
                throw ReportDecodingError(what: "anomaly kind", value: kindText, expected: "a known kind")
            }
            guard let severity = AnomalySeverity(rawValue: severityText) else {
                throw ReportDecodingError(what: "anomaly severity", value: severityText, expected: "info, warning or critical")
            }
            return AnomalyFinding(
                kind: kind,
                severity: severity,
                app: try row.decode(String.self, at: 2),
                campaignID: try row.decode(String?.self, at: 3),
                channel: try row.decode(String?.self, at: 4),
                platform: try row.decode(String?.self, at: 5),
                sdkVersion: try row.decode(String?.self, at: 6),
                appVersion: try row.decode(String?.self, at: 7),
                evidence: try AnomalyEvidence(jsonText: try row.decode(String.self, at: 8)),
                likelyCause: try row.decode(String.self, at: 9)
            )
        }
    }
}
