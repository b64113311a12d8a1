public import CardinalCore
public import Foundation

/// A validated event on its way into `cardinal.events`, with what the server knows about it.
public struct EventRecord: Sendable {
    /// The app whose key sent the event.
    public var appID: Int64
    /// The event as validated.
    public var event: Event
    /// When the daemon received the request that carried it.
    public var receivedAt: Date

    /// Creates a record.
    public init(appID: Int64, event: Event, receivedAt: Date) {
        self.appID = appID
        self.event = event
        self.receivedAt = receivedAt
    }
}

/// A rejected event on its way into `cardinal.rejected_events`: bad data is evidence, not rubbish.
public struct RejectionRecord: Sendable {
    /// The app whose key sent the event.
    public var appID: Int64
    /// The id of the request that carried it, as logged by the daemon.
    public var requestID: String
    /// When the daemon received the request.
    public var receivedAt: Date
    /// What was wrong, where in the request, and the raw event.
    public var rejection: EventRejection

    /// Creates a record.
    public init(appID: Int64, requestID: String, receivedAt: Date, rejection: EventRejection) {
        self.appID = appID
        self.requestID = requestID
        self.receivedAt = receivedAt
        self.rejection = rejection
    }
}
