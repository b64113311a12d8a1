public import Foundation

/// The report settings of one campaign, a row of `cardinal.campaign_settings`.
public struct CampaignSettings: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign id, as in its events.
    public var campaignID: String
    /// The primary conversion event the control report counts; `nil` when none is set.
    public var conversionEvent: String?
    /// The conversion events after the primary one (Braze's B, C and D), in order; at most three.
    public var furtherConversionEvents: [String]
    /// How long after exposure a conversion counts.
    public var conversionWindow: ConversionWindow
    /// How long after a push send an app open counts as an influenced open (12 hours when not set).
    public var influencedOpenWindow: InfluencedOpenWindow
    /// How long before first exposure CUPED counts the covariate (14 days when not set).
    public var cupedWindow: CUPEDWindow
    /// The expected share of users per arm; `nil` means equal shares for the SRM check.
    public var expectedSplit: ExpectedSplit?
    /// The IANA time zone of the report day; `nil` means the app's.
    public var reportTimeZone: String?
    /// Which numbers make a variant significant in the control report; `nil` means ``SignificanceRule/standard``.
    public var significance: SignificanceRule?
    /// When the row was last changed.
    public var updatedAt: Date

    /// Creates settings as read from the database.
    public init(
        app: String, campaignID: String, conversionEvent: String?, conversionWindow: ConversionWindow,
        expectedSplit: ExpectedSplit?, reportTimeZone: String?, updatedAt: Date, furtherConversionEvents: [String] = [],
        influencedOpenWindow: InfluencedOpenWindow = .standard, significance: SignificanceRule? = nil,
        cupedWindow: CUPEDWindow = .standard
    ) {
        self.significance = significance
        self.cupedWindow = cupedWindow
        self.influencedOpenWindow = influencedOpenWindow
        self.furtherConversionEvents = furtherConversionEvents
        self.app = app
        self.campaignID = campaignID
        self.conversionEvent = conversionEvent
        self.conversionWindow = conversionWindow
        self.expectedSplit = expectedSplit
        self.reportTimeZone = reportTimeZone
        self.updatedAt = updatedAt
    }
}
