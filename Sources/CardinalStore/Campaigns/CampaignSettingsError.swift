/// A campaign setting that cannot be stored, with a message that says what would be accepted.
public enum CampaignSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The conversion window text is not a duration of 1 second to 30 days.
    case invalidWindow(String)
    /// The influenced open window text is not a duration of 1 minute to 7 days.
    case invalidInfluencedOpenWindow(String)
    /// The CUPED window text is not a duration of 1 hour to 90 days.
    case invalidCUPEDWindow(String)
    /// The expected split is not a list of arms with positive weights.
    case invalidSplit(String, reason: String)
    /// The conversion event name breaks the rules of a conversion's `name`.
    case invalidConversionEvent(String)
    /// More than four conversion events, or one named twice.
    case invalidConversionEvents([String])
    /// The time zone is not an IANA name the server knows.
    case invalidTimeZone(String)
    /// The campaign id is empty or too long.
    case invalidCampaignID(String)

    /// What is wrong, without the refused text, for a message that shows the text already (a usage error).
    public var reason: String {
        switch self {
        case .invalidWindow: Self.windowRule
        case .invalidInfluencedOpenWindow: Self.influencedOpenWindowRule
        case .invalidCUPEDWindow: Self.cupedWindowRule
        case .invalidSplit(_, let reason): reason
        default: description
        }
    }

    /// What is wrong and what would be accepted.
    public var description: String {
        switch self {
        case .invalidWindow(let text):
            "\"\(text)\" is not a conversion window: \(Self.windowRule)"
        case .invalidInfluencedOpenWindow(let text):
            "\"\(text)\" is not an influenced open window: \(Self.influencedOpenWindowRule)"
        case .invalidCUPEDWindow(let text):
            "\"\(text)\" is not a CUPED window: \(Self.cupedWindowRule)"
        case .invalidSplit(let text, let reason):
            "\"\(text)\" is not an expected split: \(reason)"
        case .invalidConversionEvent(let name):
            "\"\(name)\" is not a conversion event name: 1 to 255 characters, not starting with $"
        case .invalidConversionEvents(let names):
            "\"\(names.joined(separator: ","))\" are not a campaign's conversion events: 1 to 4 names, each once"
        case .invalidTimeZone(let zone):
            "\"\(zone)\" is not a time zone PostgreSQL knows; use an IANA name such as Europe/Madrid or UTC"
        case .invalidCampaignID(let id):
            "\"\(id)\" is not a campaign id: 1 to 255 characters"
        }
    }

    /// What a conversion window looks like.
    private static let windowRule =
        "write whole numbers with units d, h, m, s, largest first (3d, 36h, 1d12h), between 1s and 30d"

    /// What an influenced open window looks like.
    private static let influencedOpenWindowRule =
        "write whole numbers with units d, h, m, s, largest first (12h, 90m, 1d12h), between 1m and 7d"

    /// What a CUPED window looks like.
    private static let cupedWindowRule =
        "write whole numbers with units d, h, m, s, largest first (14d, 36h, 1d12h), between 1h and 90d"
}
