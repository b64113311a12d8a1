extension AnomalyFinding {
    /// The columns of the anomalies report, in the order of the SQL select, the JSON members and the stored
    /// run: the one place where a column's SQL result name, JSON name and `report_anomalies` column are written
    /// down (`app_name` in SQL and the table, `app` in JSON). The terminal table keeps its own order, severity
    /// first, and shows the evidence as `name=value` pairs.
    public static let columns = ReportColumns<AnomalyFinding>([
        .enumeration("kind", \.kind, what: "anomaly kind", expected: "a known kind"),
        .enumeration("severity", \.severity, what: "anomaly severity", expected: "info, warning or critical"),
        .text("app", result: "app_name", \.app),
        .text("campaign_id", \.campaignID),
        .text("canvas_id", \.canvasID),
        .text("canvas_step_id", \.canvasStepID),
        .text("channel", \.channel),
        .text("platform", \.platform),
        .text("sdk_version", \.sdkVersion),
        .text("app_version", \.appVersion),
        ReportColumn(
            name: "evidence", kind: .text, sqlType: "jsonb",
            read: { finding, result, column in
                finding.evidence = try AnomalyEvidence(jsonText: try result.decode(String.self, column: column))
            },
            value: { $0.evidence.json }
        ),
        .text("likely_cause", \.likelyCause),
    ], blank: AnomalyFinding(
        kind: .controlInteraction, severity: .info, app: "", campaignID: nil, evidence: AnomalyEvidence([]),
        likelyCause: ""
    ))

    /// `cardinal.anomalies`, whose result ``AnomaliesQuery`` reads through ``columns``.
    public static let resultColumns = columns.result(of: "cardinal.anomalies")

    /// `cardinal.report_anomalies`, the stored run's table, which ``ReportRunStore`` writes and reads.
    public static let storedColumns = columns.storedTable("cardinal.report_anomalies")
}
