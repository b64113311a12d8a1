extension Migrator {
    /// The columns of `cardinal.schema_migrations` that the migrator reads back of the migrations applied.
    public static let migrationColumns = SQLColumns(.relation, "cardinal.schema_migrations", complete: false, [
        SQLColumn("version", "integer"),
        SQLColumn("name", "text"),
        SQLColumn("checksum", "text"),
        SQLColumn("applied_at", "timestamp with time zone"),
    ])

    /// The columns of `cardinal.schema_code` that the migrator reads back of the last run of the code files.
    public static let codeColumns = SQLColumns(.relation, "cardinal.schema_code", complete: false, [
        SQLColumn("applied_at", "timestamp with time zone"),
        SQLColumn("checksum", "text"),
    ])
}
