extension SQLColumns {
    /// Every function, view and table whose rows Swift reads by column name, as the reading code declares them:
    /// the list the contract test holds against the database.
    public static let all: [SQLColumns] = [
        UniqueImpressionsRow.resultColumns,
        UniqueImpressionsRow.storedColumns,
        AnomalyFinding.resultColumns,
        AnomaliesHalf.exposure.resultColumns,
        AnomaliesHalf.logging.resultColumns,
        AnomalyFinding.storedColumns,
        ControlArmRow.sqlColumns,
        ControlArmConversionRow.sqlColumns,
        ControlArmDayRow.sqlColumns,
        SendArmRow.sqlColumns,
        CampaignConversionRow.sqlColumns,
        ReportRun.sqlColumns,
        ReportStateBacklog.sqlColumns,
        ErasureRecord.sqlColumns,
        ExpiredPartition.sqlColumns,
        ExpiredRejections.sqlColumns,
        App.sqlColumns,
        IngestKey.sqlColumns,
        IngestRateLimits.sqlColumns,
        InstallationSettings.sqlColumns,
        CampaignSettings.sqlColumns,
        Migrator.migrationColumns,
        Migrator.codeColumns,
        ReportStateStore.groupColumns,
        ReportStateStore.foldColumns,
        ReportStateStore.requeueColumns,
        RetentionStore.droppedPartitionColumns,
        RetentionStore.deletedRejectionColumns,
    ]
}
