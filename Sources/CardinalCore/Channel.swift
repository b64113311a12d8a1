/// The surface a message was shown on, the `channel` field of the ingest API.
///
/// Channels differ in how reports count uniques (see DOMAIN.md): content cards and banners count a user
/// once per campaign, in-app messages once per calendar day.
public enum Channel: String, Sendable, CaseIterable {
    /// A card in a feed or inbox.
    case contentCard = "content_card"
    /// A modal, slide-up or full-screen message.
    case inAppMessage = "in_app_message"
    /// An inline banner in a named placement (`placement_id`).
    case banner
    /// A push notification; a click is an open.
    case push
    /// A feature turned on or off; impressions carry the variant, control included.
    case featureFlag = "feature_flag"
}
