public import PostgresClient

/// A campaign setting that is a length of time within the bounds its column's CHECK accepts (the conversion
/// window, the influenced open window): range check, CLI form and PostgreSQL form, written once here.
public protocol BoundedSettingDuration: Sendable, Hashable, CustomStringConvertible, PostgresEncodable {
    /// The length in seconds.
    var seconds: Int { get }
    /// The shortest length the setting accepts.
    static var minimum: Self { get }
    /// The longest length the setting accepts.
    static var maximum: Self { get }
    /// The error for a text that is not in the CLI form or out of range.
    static func invalid(_ text: String) -> CampaignSettingsError
    /// A length the caller has checked against ``minimum`` … ``maximum`` (this protocol's `init?(seconds:)`
    /// does); the way a conforming type builds its bounds.
    init(checkedSeconds: Int)
}

extension BoundedSettingDuration {
    /// A length of `seconds`, or `nil` outside ``minimum`` … ``maximum``.
    public init?(seconds: Int) {
        guard (Self.minimum.seconds...Self.maximum.seconds).contains(seconds) else {
            return nil
        }
        self.init(checkedSeconds: seconds)
    }

    /// Parses the CLI form: one or more whole numbers with a unit, largest unit first, such as `3d`, `36h`,
    /// `1d12h`, `90m` or `45s` (`d` days, `h` hours, `m` minutes, `s` seconds).
    /// - Throws: ``invalid(_:)``'s error for any other text or a length out of range.
    public init(parsing text: String) throws(CampaignSettingsError) {
        guard let seconds = SettingDuration.seconds(parsing: text), let length = Self(seconds: seconds) else {
            throw Self.invalid(text)
        }
        self = length
    }

    /// The length in days, fractional when it is not whole days (`window_days` and `cuped_window_days` in the
    /// control report's JSON).
    public var days: Double {
        Double(seconds) / 86_400
    }

    /// The CLI form, largest units first: `3d`, `1d12h`, `90s` → `1m30s`.
    public var description: String {
        SettingDuration.text(seconds: seconds)
    }

    /// Days and seconds as PostgreSQL `interval` input (`3 days 0 seconds`), so that the stored interval has a
    /// day part and no month part, as the columns' CHECKs require.
    public var postgresText: String {
        SettingDuration.postgresText(seconds: seconds)
    }
}
