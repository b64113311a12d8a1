extension CampaignConversionRow {
    /// The result columns of `cardinal.campaign_conversions`, which ``CampaignConversionsQuery`` selects and
    /// decodes (the JSON amounts as their text).
    public static let sqlColumns = SQLColumns(.function, "cardinal.campaign_conversions", [
        SQLColumn("app_name", "text"),
        SQLColumn("campaign_id", "text"),
        SQLColumn("variant_id", "text"),
        SQLColumn("ordinal", "smallint"),
        SQLColumn("conversion_event", "text"),
        SQLColumn("window_length", "interval"),
        SQLColumn("unique_recipients", "bigint"),
        SQLColumn("converters", "bigint"),
        SQLColumn("conversion_rate", "double precision"),
        SQLColumn("revenue", "jsonb"),
        SQLColumn("revenue_per_recipient", "jsonb"),
    ])
}
