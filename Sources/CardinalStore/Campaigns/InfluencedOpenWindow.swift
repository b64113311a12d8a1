public import PostgresClient

/// How long after a push send an app open without a direct open counts as an influenced open of the push:
/// 1 minute to 7 days in whole seconds, the range `campaign_settings.influenced_open_window` accepts (0029).
public struct InfluencedOpenWindow: Sendable, Hashable, CustomStringConvertible {
    /// The length in seconds.
    public let seconds: Int

    /// The shortest window, one minute.
    public static let minimum = InfluencedOpenWindow(uncheckedSeconds: 60)
    /// The longest window, 7 days.
    public static let maximum = InfluencedOpenWindow(uncheckedSeconds: 7 * 86_400)
    /// The window of a campaign that sets none, 12 hours.
    public static let standard = InfluencedOpenWindow(uncheckedSeconds: 12 * 3_600)

    /// A window of `seconds`, or `nil` outside 1 minute … 7 days.
    public init?(seconds: Int) {
        guard (Self.minimum.seconds...Self.maximum.seconds).contains(seconds) else {
            return nil
        }
        self.seconds = seconds
    }

    private init(uncheckedSeconds: Int) {
        seconds = uncheckedSeconds
    }

    /// Parses the CLI form of ``ConversionWindow/init(parsing:)``: `12h`, `90m`, `1d12h`.
    /// - Throws: ``CampaignSettingsError/invalidInfluencedOpenWindow(_:)`` for any other text or a length
    ///   outside 1m … 7d.
    public init(parsing text: String) throws(CampaignSettingsError) {
        guard let seconds = SettingDuration.seconds(parsing: text), let window = Self(seconds: seconds) else {
            throw .invalidInfluencedOpenWindow(text)
        }
        self = window
    }

    /// The CLI form, largest units first: `12h`, `1d12h`.
    public var description: String {
        SettingDuration.text(seconds: seconds)
    }
}

extension InfluencedOpenWindow: PostgresEncodable {
    /// Days and seconds as PostgreSQL `interval` input, without months, as the column's CHECK requires.
    public var postgresText: String {
        SettingDuration.postgresText(seconds: seconds)
    }
}
