/// One identity to erase from an app: a user (its `user_id`) or a device (its `device_id`).
public struct ErasureTarget: Sendable, Equatable {
    /// Which identifier of an event the id is.
    public enum Kind: String, Sendable, CaseIterable {
        /// `events.user_id`: every event the app logged for that user, on any device.
        case user
        /// `events.device_id`: every event logged on that device, anonymous or by a user who logged in there.
        case device
    }

    /// Which identifier it is.
    public var kind: Kind
    /// The id exactly as the app sent it.
    public var id: String

    /// Creates a target.
    public init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }
}
