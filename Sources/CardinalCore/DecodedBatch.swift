/// A valid event together with its 0-based position in the request.
public struct IndexedEvent: Sendable, Equatable {
    /// The event's position in the request (see ``EventRejection/index``).
    public var index: Int
    /// The validated event.
    public var event: Event

    /// Creates an indexed event.
    public init(index: Int, event: Event) {
        self.index = index
        self.event = event
    }
}

/// The outcome of decoding one request body: the valid events and the rejections, both in request order.
///
/// Events with the same `id` within one request are all kept here: duplicates are not a validation
/// matter, storage is idempotent on `id`.
public struct DecodedBatch: Sendable, Equatable {
    /// The events that passed validation.
    public var events: [IndexedEvent]
    /// The events that did not.
    public var rejections: [EventRejection]
    /// How many events the request held: `events.count + rejections.count`.
    public var count: Int

    /// Creates a batch outcome.
    public init(events: [IndexedEvent], rejections: [EventRejection], count: Int) {
        self.events = events
        self.rejections = rejections
        self.count = count
    }
}
