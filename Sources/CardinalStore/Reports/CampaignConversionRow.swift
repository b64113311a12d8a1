/// One row of `cardinal.campaign_conversions`: one conversion event of an app × campaign × variant.
public struct CampaignConversionRow: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign.
    public var campaignID: String
    /// The variant; `nil` for a campaign without variants.
    public var variantID: String?
    /// The conversion event's place among the campaign's: 1 is the primary, then 2 to 4.
    public var ordinal: Int
    /// The conversion event's name.
    public var conversionEvent: String
    /// The campaign's conversion window.
    public var window: ConversionWindow
    /// The sum over report days of the users who received the campaign that day.
    public var uniqueRecipients: Int64
    /// Users first reached in the range who converted within the window after that first receipt.
    public var converters: Int64
    /// converters / uniqueRecipients.
    public var conversionRate: Double?
    /// Per currency, the converters' values within their windows, by currency code.
    public var revenue: [CurrencyAmount]
    /// Per currency, revenue / uniqueRecipients.
    public var revenuePerRecipient: [CurrencyAmount]

    /// Creates a row; the query decodes them from the database.
    public init(
        app: String, campaignID: String, variantID: String?, ordinal: Int, conversionEvent: String,
        window: ConversionWindow, uniqueRecipients: Int64, converters: Int64, conversionRate: Double?,
        revenue: [CurrencyAmount], revenuePerRecipient: [CurrencyAmount]
    ) {
        self.app = app
        self.campaignID = campaignID
        self.variantID = variantID
        self.ordinal = ordinal
        self.conversionEvent = conversionEvent
        self.window = window
        self.uniqueRecipients = uniqueRecipients
        self.converters = converters
        self.conversionRate = conversionRate
        self.revenue = revenue
        self.revenuePerRecipient = revenuePerRecipient
    }
}
