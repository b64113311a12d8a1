/// How fast the report-state fold goes against how fast events arrive for it, measured by
/// `cardinal.report_fold_rate()` over the folds of the last five minutes or so, every fold of the database
/// (each daemon's and `cardinal state fold`'s). A `nil` figure is unknown: no fold was recorded, or none folded
/// an event.
public struct ReportFoldRate: Sendable, Equatable {
    /// Events folded per second of clock time.
    public var eventsPerSecond: Double?
    /// Events folded per second spent folding: what the fold does while it runs.
    public var capacityEventsPerSecond: Double?
    /// Events added to the backlog per second: stored, re-queued by a rebuild, or re-keyed by a login.
    public var arrivalEventsPerSecond: Double?
    /// Seconds until the backlog is empty at these rates: 0 when it is empty, `.infinity` when the fold does not
    /// gain on it (its capacity is not above the arrival rate), `nil` when no capacity was measured.
    public var drainSeconds: Double?

    /// Creates a rate; every figure unknown by default.
    public init(
        eventsPerSecond: Double? = nil, capacityEventsPerSecond: Double? = nil, arrivalEventsPerSecond: Double? = nil,
        drainSeconds: Double? = nil
    ) {
        self.eventsPerSecond = eventsPerSecond
        self.capacityEventsPerSecond = capacityEventsPerSecond
        self.arrivalEventsPerSecond = arrivalEventsPerSecond
        self.drainSeconds = drainSeconds
    }
}
