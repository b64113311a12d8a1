/// The device platform an event came from, the optional `platform` field of the ingest API.
///
/// The anomaly report groups by it, so the set is closed: anything else is reported as `other`.
public enum Platform: String, Sendable, CaseIterable {
    /// Apple iOS and iPadOS.
    case ios
    /// Android.
    case android
    /// A web browser.
    case web
    /// Amazon Kindle Fire.
    case kindle
    /// Apple tvOS.
    case tvos
    /// Roku.
    case roku
    /// Any other platform.
    case other
}
