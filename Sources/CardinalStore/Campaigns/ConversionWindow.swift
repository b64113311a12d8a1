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
        let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        var remaining = Substring(text)
        var total = 0
        var nextUnit = 0
        while !remaining.isEmpty {
            let digits = remaining.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 7, let count = Int(digits),
                  let unit = remaining.dropFirst(digits.count).first,
                  let index = units[nextUnit...].firstIndex(where: { $0.0 == unit })
            else {
                throw .invalidWindow(text)
            }
            total += count * units[index].1
            nextUnit = index + 1
            remaining = remaining.dropFirst(digits.count + 1)
        }
        guard !text.isEmpty, let window = ConversionWindow(seconds: total) else {
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
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
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
        "\(seconds / 86_400) days \(seconds % 86_400) seconds"
    }
}
