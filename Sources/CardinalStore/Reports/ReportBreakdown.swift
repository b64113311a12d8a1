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
}
