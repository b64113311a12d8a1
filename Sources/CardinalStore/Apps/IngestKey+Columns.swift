extension IngestKey {
    /// The columns of `cardinal.ingest_keys` that ``IngestKeyStore`` selects and decodes; `key_hash` is written
    /// and matched, never read.
    public static let sqlColumns = SQLColumns(.relation, "cardinal.ingest_keys", complete: false, [
        SQLColumn("key_id", "text"),
        SQLColumn("app_id", "bigint"),
        SQLColumn("created_at", "timestamp with time zone"),
        SQLColumn("revoked_at", "timestamp with time zone"),
        SQLColumn("description", "text"),
    ])
}
