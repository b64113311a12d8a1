public import PostgresClient

/// How long after exposure a conversion still counts: between 1 second and 30 days (DOMAIN.md), in whole
/// seconds, the same range `campaign_settings.conversion_window` accepts.
public struct ConversionWindow: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The length in seconds.
    public let seconds: Int

    /// The shortest window, one second.
    public static let minimum = ConversionWindow(uncheckedSeconds: 1)
    /// The longest window, 30 days.
    public static let maximum = ConversionWindow(uncheckedSeconds: 30 * 86_400)
    /// The window a campaign without settings gets, 3 days.
    public static let standard = ConversionWindow(uncheckedSeconds: 3 * 86_400)

    /// A window of `seconds`, or `nil` outside 1 second … 30 days.
    public init?(seconds: Int) {
        guard (Self.minimum.seconds...Self.maximum.seconds).contains(seconds) else {
            return nil
        }
        self.seconds = seconds
    }

    private init(uncheckedSeconds: Int) {
        seconds = uncheckedSeconds
    }

    /// Parses the CLI form: one or more whole numbers with a unit, largest unit first, such as `3d`, `36h`,
    /// `1d12h`, `90m` or `45s` (`d` days, `h` hours, `m` minutes, `s` seconds).
    /// - Throws: ``CampaignSettingsError/invalidWindow(_:)`` for any other text or a length outside 1s … 30d.
    public init(parsing text: String) throws(CampaignSettingsError) {
        guard let seconds = SettingDuration.seconds(parsing: text), let window = ConversionWindow(seconds: seconds) else {
            throw .invalidWindow(text)
        }
        self = window
    }

    /// The length in days, fractional when the window is not whole days (`window_days` in the JSON output).
    public var days: Double {
        Double(seconds) / 86_400
    }

    /// The CLI form, largest units first: `3d`, `1d12h`, `90s` → `1m30s`.
    public var description: String {
        SettingDuration.text(seconds: seconds)
    }

    /// Shorter windows first.
    public static func < (lhs: ConversionWindow, rhs: ConversionWindow) -> Bool {
        lhs.seconds < rhs.seconds
    }
}

extension ConversionWindow: PostgresEncodable {
    /// Days and seconds as PostgreSQL `interval` input (`3 days 0 seconds`), so that the stored interval
    /// has a day part and no month part, as the column's CHECK requires.
    public var postgresText: String {
        SettingDuration.postgresText(seconds: seconds)
    }
}
