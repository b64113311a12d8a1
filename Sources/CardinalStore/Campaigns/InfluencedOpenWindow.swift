/// How long after a push send an app open without a direct open counts as an influenced open of the push:
/// 1 minute to 7 days in whole seconds, the range `campaign_settings.influenced_open_window` accepts.
public struct InfluencedOpenWindow: BoundedSettingDuration {
    public let seconds: Int

    /// One minute.
    public static let minimum = InfluencedOpenWindow(checkedSeconds: 60)
    /// 7 days.
    public static let maximum = InfluencedOpenWindow(checkedSeconds: 7 * 86_400)
    /// The window of a campaign that sets none, 12 hours.
    public static let standard = InfluencedOpenWindow(checkedSeconds: 12 * 3_600)

    public init(checkedSeconds: Int) {
        seconds = checkedSeconds
    }

    public static func invalid(_ text: String) -> CampaignSettingsError {
        .invalidInfluencedOpenWindow(text)
    }
}
