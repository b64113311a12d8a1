/// The changes `cardinal campaigns set` makes to a campaign's settings; settings not mentioned keep their value.
public struct CampaignSettingsUpdate: Sendable, Equatable {
    /// The primary conversion event.
    public var conversionEvent: SettingChange<String>
    /// The conversion events after the primary one (reset: none); the primary's reset resets them too.
    public var furtherConversionEvents: SettingChange<[String]>
    /// The conversion window (reset: 3 days).
    public var conversionWindow: SettingChange<ConversionWindow>
    /// The influenced open window of push campaigns (reset: none, 12 hours).
    public var influencedOpenWindow: SettingChange<InfluencedOpenWindow>
    /// CUPED's pre-exposure window (reset: none, 14 days).
    public var cupedWindow: SettingChange<CUPEDWindow>
    /// The expected split (reset: none, equal shares).
    public var expectedSplit: SettingChange<ExpectedSplit>
    /// The report time zone (reset: the app's).
    public var reportTimeZone: SettingChange<String>
    /// The rule that makes a variant significant (reset: none, sequential).
    public var significance: SettingChange<SignificanceRule>

    /// Creates an update; every setting is kept unless given.
    public init(
        conversionEvent: SettingChange<String> = .keep,
        conversionWindow: SettingChange<ConversionWindow> = .keep,
        expectedSplit: SettingChange<ExpectedSplit> = .keep,
        reportTimeZone: SettingChange<String> = .keep,
        furtherConversionEvents: SettingChange<[String]> = .keep,
        influencedOpenWindow: SettingChange<InfluencedOpenWindow> = .keep,
        significance: SettingChange<SignificanceRule> = .keep,
        cupedWindow: SettingChange<CUPEDWindow> = .keep
    ) {
        self.significance = significance
        self.cupedWindow = cupedWindow
        self.influencedOpenWindow = influencedOpenWindow
        self.furtherConversionEvents = furtherConversionEvents
        self.conversionEvent = conversionEvent
        self.conversionWindow = conversionWindow
        self.expectedSplit = expectedSplit
        self.reportTimeZone = reportTimeZone
    }
}
