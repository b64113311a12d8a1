import CardinalCore
public import PostgresClient

/// Runs `cardinal.campaign_conversions`, the same function psql users call.
public struct CampaignConversionsQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The rows, in the function's order (app, campaign, variant, conversion event).
    /// - Throws: `PostgresError`, e.g. SQLSTATE 22023 when `scope.from` is after `scope.to`;
    ///   ``ReportDecodingError`` for a window or revenue the function should never return.
    public func run(_ scope: ReportScope) throws -> [CampaignConversionRow] {
        let columns = CampaignConversionRow.sqlColumns
        return try connection.query(
            """
            select \(columns.selectList),
                   extract(epoch from \(identifier: columns["window_length"]))::bigint as window_seconds
            from \(columns.objectName)(app => \(scope.app), from_date => \(scope.from), to_date => \(scope.to),
                                               campaign => \(scope.campaign), include_test => \(scope.includeTest))
            """
        ).map(Self.row)
    }

    private static func row(_ result: PostgresRow) throws -> CampaignConversionRow {
        let columns = CampaignConversionRow.sqlColumns
        let seconds = try result.decode(Int.self, column: "window_seconds")
        guard let window = ConversionWindow(seconds: seconds) else {
            throw ReportDecodingError(
                what: "window_length", value: "\(seconds) seconds", expected: "between 1 second and 30 days"
            )
        }
        return CampaignConversionRow(
            app: try result.decode(String.self, column: columns["app_name"]),
            campaignID: try result.decode(String.self, column: columns["campaign_id"]),
            variantID: try result.decode(String?.self, column: columns["variant_id"]),
            ordinal: Int(try result.decode(Int16.self, column: columns["ordinal"])),
            conversionEvent: try result.decode(String.self, column: columns["conversion_event"]),
            window: window,
            uniqueRecipients: try result.decode(Int64.self, column: columns["unique_recipients"]),
            converters: try result.decode(Int64.self, column: columns["converters"]),
            conversionRate: try result.decode(Double?.self, column: columns["conversion_rate"]),
            revenue: try amounts(result, column: columns["revenue"]),
            revenuePerRecipient: try amounts(result, column: columns["revenue_per_recipient"])
        )
    }

    /// `{"EUR": 9.5, "USD": 10}` as amounts in the object's order (jsonb sorts its keys).
    private static func amounts(_ result: PostgresRow, column: String) throws -> [CurrencyAmount] {
        let text = try result.decode(String.self, column: column)
        guard case .object(let object) = try? JSONValue.parse(text) else {
            throw ReportDecodingError(what: column, value: text, expected: "a JSON object of currency to amount")
        }
        return try object.members.map { member in
            guard case .number(let amount) = member.value else {
                throw ReportDecodingError(what: column, value: text, expected: "a JSON object of currency to amount")
            }
            return CurrencyAmount(currency: member.key, amount: amount)
        }
    }
}
