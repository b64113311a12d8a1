/// The kind of an engagement event, the `type` field of the ingest API.
///
/// `conversion` is the odd one out: it describes something the user did in the app, not an interaction
/// with a message, so it carries no channel and may carry no message source (see ``EventValidator``).
public enum EventType: String, Sendable, CaseIterable {
    /// The message was handed to the user's device or to the push provider.
    case send
    /// The user saw the message (or, with `control`, would have seen it).
    case impression
    /// The user tapped the message, one of its buttons (`button_id`) or a link in it (`url`).
    case click
    /// The user closed or swiped the message away without clicking.
    case dismissal
    /// A custom app event (`name`, optionally `value` and `currency`) that campaigns try to cause.
    case conversion

    /// Whether `control: true` may accompany this type: a control user is enrolled (`send`) and logs the
    /// moment they would have seen the message (`impression`), but cannot interact with a message never shown.
    public var allowsControl: Bool {
        self == .send || self == .impression
    }
}
