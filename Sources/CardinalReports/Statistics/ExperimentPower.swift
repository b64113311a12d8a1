/// The power and duration figures of one variant against control (``PowerCalculation``).
public struct ExperimentPower: Sendable, Equatable {
    /// The smallest p_variant − p_control the current matured users detect with 80 % power at α = 0.05.
    public var minimumDetectableDifference: Double?
    /// ``minimumDetectableDifference`` as a share of the control rate; `nil` when that rate is 0.
    public var minimumDetectableLift: Double?
    /// The relative lift asked about (`--target-lift`), if any.
    public var targetLift: Double?
    /// Days still needed to detect ``targetLift`` (0 when the matured users already suffice); `nil` without a
    /// target, without traffic to extrapolate from, or when the control rate is 0 or 1.
    public var daysToTarget: Double?

    /// Creates the figures; every field defaults to `nil` (undefined).
    public init(
        minimumDetectableDifference: Double? = nil, minimumDetectableLift: Double? = nil, targetLift: Double? = nil,
        daysToTarget: Double? = nil
    ) {
        self.minimumDetectableDifference = minimumDetectableDifference
        self.minimumDetectableLift = minimumDetectableLift
        self.targetLift = targetLift
        self.daysToTarget = daysToTarget
    }
}
