extension RetentionStore {
    /// The result of `cardinal.drop_expired_event_partitions()`, a set of relation names named after the
    /// function, which ``dropExpiredPartitions()`` decodes.
    public static let droppedPartitionColumns = SQLColumns(.function, "cardinal.drop_expired_event_partitions", [
        SQLColumn("drop_expired_event_partitions", "text"),
    ])

    /// The result of `cardinal.delete_expired_rejected_events()`, a count named after the function, which
    /// ``deleteExpiredRejections(appID:)`` decodes.
    public static let deletedRejectionColumns = SQLColumns(.function, "cardinal.delete_expired_rejected_events", [
        SQLColumn("delete_expired_rejected_events", "bigint"),
    ])
}
