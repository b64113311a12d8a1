/// A conversion event of a campaign after its primary one (Braze's conversion events B, C and D) in the
/// control report: each arm's matured users and converters of that event, and each variant against control.
public struct ControlConversion: Sendable, Equatable {
    /// The event's position among the campaign's conversion events, 2 to 4 (1 is the primary).
    public var ordinal: Int
    /// The conversion event counted.
    public var conversionEvent: String
    /// The arms, in the order of the campaign's (control first), with this event's converters.
    public var arms: [ControlArm]
    /// Each variant arm against control on this event, in the order of ``arms``; the Holm adjustment runs over
    /// every variant × further event of the campaign (``ControlStatistics/compareAll(events:)``).
    public var comparisons: [ControlComparison]

    /// Creates a conversion event's part of the report.
    public init(ordinal: Int, conversionEvent: String, arms: [ControlArm], comparisons: [ControlComparison]) {
        self.ordinal = ordinal
        self.conversionEvent = conversionEvent
        self.arms = arms
        self.comparisons = comparisons
    }
}
