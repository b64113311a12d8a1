/// The events stored but not yet folded into the report state.
public struct ReportStateBacklog: Sendable, Equatable {
    /// How many there are.
    public var events: Int64
    /// Seconds since the oldest of them was stored; `nil` when there is none.
    public var oldestAgeSeconds: Double?

    /// Creates a backlog figure.
    public init(events: Int64, oldestAgeSeconds: Double?) {
        self.events = events
        self.oldestAgeSeconds = oldestAgeSeconds
    }
}
