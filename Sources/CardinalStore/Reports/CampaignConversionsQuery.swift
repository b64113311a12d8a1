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
        try connection.query(
            """
            select app_name, campaign_id, variant_id, ordinal, conversion_event,
                   extract(epoch from window_length)::bigint, unique_recipients, converters, conversion_rate,
                   revenue::text, revenue_per_recipient::text
            from cardinal.campaign_conversions(app => $1, from_date => $2, to_date => $3, campaign => $4,
                                               include_test => $5)
            """,
            [scope.app, scope.from, scope.to, scope.campaign, scope.includeTest]
        ).map(Self.row)
    }

    private static func row(_ result: PostgresRow) throws -> CampaignConversionRow {
        let seconds = try result.decode(Int.self, at: 5)
        guard let window = ConversionWindow(seconds: seconds) else {
            throw ReportDecodingError(
                what: "window_length", value: "\(seconds) seconds", expected: "between 1 second and 30 days"
            )
        }
        return CampaignConversionRow(
            app: try result.decode(String.self, at: 0),
            campaignID: try result.decode(String.self, at: 1),
            variantID: try result.decode(String?.self, at: 2),
            ordinal: Int(try result.decode(Int16.self, at: 3)),
            conversionEvent: try result.decode(String.self, at: 4),
            window: window,
            uniqueRecipients: try result.decode(Int64.self, at: 6),
            converters: try result.decode(Int64.self, at: 7),
            conversionRate: try result.decode(Double?.self, at: 8),
            revenue: try amounts(try result.decode(String.self, at: 9), column: "revenue"),
            revenuePerRecipient: try amounts(try result.decode(String.self, at: 10), column: "revenue_per_recipient")
        )
    }

    /// `{"EUR": 9.5, "USD": 10}` as amounts in the object's order (jsonb sorts its keys).
    private static func amounts(_ text: String, column: String) throws -> [CurrencyAmount] {
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
