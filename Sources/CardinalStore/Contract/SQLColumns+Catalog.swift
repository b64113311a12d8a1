extension SQLColumns {
    /// Every function, view and table whose rows Swift reads by column name, as the reading code declares them:
    /// the list the contract test holds against the database.
    public static let all: [SQLColumns] = [
        UniqueImpressionsRow.columns.result(of: "cardinal.unique_impressions"),
        UniqueImpressionsRow.columns.storedTable("cardinal.report_unique_impressions"),
        AnomalyFinding.columns.result(of: "cardinal.anomalies"),
        AnomalyFinding.columns.result(of: "cardinal.exposure_anomalies"),
        AnomalyFinding.columns.result(of: "cardinal.logging_anomalies"),
        AnomalyFinding.columns.storedTable("cardinal.report_anomalies"),
        ControlArmRow.sqlColumns,
        ControlArmConversionRow.sqlColumns,
        SendArmRow.sqlColumns,
        CampaignConversionRow.sqlColumns,
        ReportRun.sqlColumns,
        ReportStateBacklog.sqlColumns,
        ErasureRecord.sqlColumns,
        ExpiredPartition.sqlColumns,
        ExpiredRejections.sqlColumns,
    ]
}
