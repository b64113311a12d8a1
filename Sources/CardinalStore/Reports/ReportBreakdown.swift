/// The optional extra column of the unique-impressions report (`--by`, the SQL argument `by`).
public enum ReportBreakdown: String, Sendable, CaseIterable {
    /// One row per report day (`YYYY-MM-DD`).
    case day
    /// One row per platform.
    case platform
    /// One row per SDK version.
    case sdkVersion = "sdk_version"
    /// One row per app version.
    case appVersion = "app_version"
    /// In-app messages and push: one row per button clicked (none: the body), each with the message's
    /// impressions or recipients.
    case buttonID = "button_id"
    /// Banners: one row per placement.
    case placementID = "placement_id"
    /// Content cards: one row per card.
    case messageID = "message_id"
}
