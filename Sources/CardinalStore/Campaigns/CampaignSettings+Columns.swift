extension CampaignSettings {
    /// The columns of `cardinal.campaign_settings`, which ``CampaignSettingsStore`` selects and decodes.
    public static let sqlColumns = SQLColumns(.relation, "cardinal.campaign_settings", [
        SQLColumn("app_id", "bigint"),
        SQLColumn("campaign_id", "text"),
        SQLColumn("conversion_event", "text"),
        SQLColumn("conversion_window", "interval"),
        SQLColumn("expected_split", "jsonb"),
        SQLColumn("report_time_zone", "text"),
        SQLColumn("updated_at", "timestamp with time zone"),
        SQLColumn("influenced_open_window", "interval"),
        SQLColumn("significance", "text"),
        SQLColumn("cuped_window", "interval"),
    ])
}
