public import Foundation

/// A monthly partition of `cardinal.events` that lies wholly before the retention cutoff.
public struct ExpiredPartition: Sendable, Equatable {
    /// Its schema-qualified name, such as `cardinal.events_y2025m01`.
    public var relation: String
    /// The first instant it holds.
    public var from: Date
    /// The instant after the last it holds.
    public var to: Date
    /// The planner's estimate of its rows (0 before it was first analyzed).
    public var estimatedEvents: Int64

    /// Creates a listing entry.
    public init(relation: String, from: Date, to: Date, estimatedEvents: Int64) {
        self.relation = relation
        self.from = from
        self.to = to
        self.estimatedEvents = estimatedEvents
    }
}
