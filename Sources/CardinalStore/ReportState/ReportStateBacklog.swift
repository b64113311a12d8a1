/// The events stored but not yet folded into the report state, and how fast the fold drains them.
public struct ReportStateBacklog: Sendable, Equatable {
    /// How many there are.
    public var events: Int64
    /// Seconds since the oldest of them was stored; `nil` when there is none.
    public var oldestAgeSeconds: Double?
    /// The fold's pace and the time it needs to drain them.
    public var fold: ReportFoldRate

    /// Creates a backlog figure.
    public init(events: Int64, oldestAgeSeconds: Double?, fold: ReportFoldRate = ReportFoldRate()) {
        self.events = events
        self.oldestAgeSeconds = oldestAgeSeconds
        self.fold = fold
    }
}
