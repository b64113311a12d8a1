/// How long after exposure a conversion still counts: between 1 second and 30 days (DOMAIN.md), in whole
/// seconds, the same range `campaign_settings.conversion_window` accepts.
public struct ConversionWindow: BoundedSettingDuration, Comparable {
    public let seconds: Int

    /// One second.
    public static let minimum = ConversionWindow(checkedSeconds: 1)
    /// 30 days.
    public static let maximum = ConversionWindow(checkedSeconds: 30 * 86_400)
    /// The window a campaign without settings gets, 3 days.
    public static let standard = ConversionWindow(checkedSeconds: 3 * 86_400)

    public init(checkedSeconds: Int) {
        seconds = checkedSeconds
    }

    public static func invalid(_ text: String) -> CampaignSettingsError {
        .invalidWindow(text)
    }

    /// Shorter windows first.
    public static func < (lhs: ConversionWindow, rhs: ConversionWindow) -> Bool {
        lhs.seconds < rhs.seconds
    }
}
