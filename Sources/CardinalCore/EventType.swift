/// The kind of an engagement event, the `type` field of the ingest API.
///
/// `conversion` and `session_start` are the odd ones out: they describe something the user did in the app,
/// not an interaction with a message, so they carry no channel (see ``EventValidator``). A push open is a
/// `click` on channel `push` (Braze's direct open).
public enum EventType: String, Sendable, CaseIterable {
    /// The message was handed to the user's device or to the push provider.
    case send
    /// The user saw the message (or, with `control`, would have seen it).
    case impression
    /// The user tapped the message, one of its buttons (`button_id`) or a link in it (`url`).
    case click
    /// The user closed or swiped the message away without clicking.
    case dismissal
    /// A push notification reached the device: the SDK's received callback (Android
    /// `NOTIFICATION_RECEIVED`, iOS `.received`). Push only.
    case delivery
    /// A custom app event (`name`, optionally `value` and `currency`) that campaigns try to cause.
    case conversion
    /// The app came to the foreground and the SDK opened a session: an app open, which counts as an
    /// influenced open of a push sent shortly before.
    case sessionStart = "session_start"

    /// Whether the event belongs to the app rather than to a message, and so has no channel.
    public var isAppLevel: Bool {
        self == .conversion || self == .sessionStart
    }

    /// Whether `control: true` may accompany this type: a control user is enrolled (`send`) and logs the
    /// moment they would have seen the message (`impression`), but cannot interact with a message never shown.
    public var allowsControl: Bool {
        self == .send || self == .impression
    }
}
