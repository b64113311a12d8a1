/// How long before a user's first exposure CUPED counts the user's conversions of the campaign's conversion event
/// as the covariate of the adjusted lift: 1 hour to 90 days in whole seconds, the range
/// `campaign_settings.cuped_window` accepts.
public struct CUPEDWindow: BoundedSettingDuration {
    public let seconds: Int

    /// One hour.
    public static let minimum = CUPEDWindow(checkedSeconds: 3_600)
    /// 90 days.
    public static let maximum = CUPEDWindow(checkedSeconds: 90 * 86_400)
    /// The window of a campaign that sets none, 14 days.
    public static let standard = CUPEDWindow(checkedSeconds: 14 * 86_400)

    public init(checkedSeconds: Int) {
        seconds = checkedSeconds
    }

    public static func invalid(_ text: String) -> CampaignSettingsError {
        .invalidCUPEDWindow(text)
    }
}
