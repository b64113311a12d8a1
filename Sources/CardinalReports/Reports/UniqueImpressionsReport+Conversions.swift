public import CardinalCore
import CardinalStore

extension UniqueImpressionsReport {
    /// The `conversions` member of the JSON document (added by issue 12; the members before it are unchanged):
    /// one object per campaign × variant × conversion event, revenue as an object of currency to exact amount.
    public var conversionsJSON: JSONValue {
        .array(conversions.map { row in
            ReportJSON.object([
                ("app", .string(row.app)),
                ("campaign_id", .string(row.campaignID)),
                ("variant_id", ReportJSON.string(row.variantID)),
                ("ordinal", ReportJSON.integer(row.ordinal)),
                ("conversion_event", .string(row.conversionEvent)),
                ("window_seconds", ReportJSON.integer(row.window.seconds)),
                ("unique_recipients", ReportJSON.integer(row.uniqueRecipients)),
                ("converters", ReportJSON.integer(row.converters)),
                ("conversion_rate", ReportJSON.number(row.conversionRate)),
                ("revenue", Self.amountsJSON(row.revenue)),
                ("revenue_per_recipient", Self.amountsJSON(row.revenuePerRecipient)),
            ])
        })
    }

    private static func amountsJSON(_ amounts: [CurrencyAmount]) -> JSONValue {
        ReportJSON.object(amounts.map { ($0.currency, .number($0.amount)) })
    }

    /// The conversions as a table: rates and revenue per recipient to 4 decimals, revenue exact, each
    /// currency as `EUR 9.5`.
    func conversionsTable() -> TextTable {
        TextTable(
            header: ["app", "campaign_id", "variant_id", "ordinal", "conversion_event", "window",
                     "unique_recipients", "converters", "conversion_rate", "revenue", "revenue_per_recipient"],
            rows: conversions.map { row in
                [row.app, row.campaignID, row.variantID, String(row.ordinal), row.conversionEvent,
                 row.window.description, String(row.uniqueRecipients), String(row.converters),
                 CellFormat.fixed(row.conversionRate),
                 row.revenue.map { "\($0.currency) \($0.amount)" }.joined(separator: ", "),
                 row.revenuePerRecipient.map { "\($0.currency) \(CellFormat.fixed(Double($0.amount)) ?? $0.amount)" }
                     .joined(separator: ", ")]
            }
        )
    }
}
