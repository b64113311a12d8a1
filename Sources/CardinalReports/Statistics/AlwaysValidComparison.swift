/// The always-valid (anytime) numbers of one variant against control: valid however often the report is read
/// and whenever the team decides to stop, unlike the fixed-horizon ones of ``VariantComparison``.
///
/// Computed by ``ConfidenceSequence`` (Howard et al.'s asymptotic confidence sequence with GrowthBook's tuning)
/// on the unpooled estimates of ``DifferenceEstimate``, from the arms' matured users as of the report's
/// `--as-of`. Every field is `nil` where the estimate's variance is 0 (nobody or everybody converted in both
/// arms) and, for the lift, where control's rate is 0.
public struct AlwaysValidComparison: Sendable, Equatable {
    /// The 95% confidence sequence's interval for p_variant − p_control today.
    public var differenceInterval: Interval?
    /// The 95% confidence sequence's interval for the relative lift (p_v − p_c)/p_c today (delta method, so
    /// symmetric around the lift, unlike Katz's).
    public var relativeLiftInterval: Interval?
    /// The always-valid p-value of p_variant = p_control (on the absolute difference): ≤ 0.05 exactly when
    /// ``differenceInterval`` excludes 0.
    public var pValue: Double?
    /// ``pValue`` after Holm's adjustment across the campaign's variants, as for the fixed-horizon p-value.
    public var pValueHolm: Double?

    /// Creates the numbers; every field defaults to `nil` (undefined).
    public init(
        differenceInterval: Interval? = nil, relativeLiftInterval: Interval? = nil, pValue: Double? = nil,
        pValueHolm: Double? = nil
    ) {
        self.differenceInterval = differenceInterval
        self.relativeLiftInterval = relativeLiftInterval
        self.pValue = pValue
        self.pValueHolm = pValueHolm
    }

    /// The numbers for two arms with consistent counts.
    static func compare(variant: ArmCounts, control: ArmCounts, sequence: ConfidenceSequence) -> AlwaysValidComparison {
        let variantMoments = ArmMoments(proportion: variant)
        let controlMoments = ArmMoments(proportion: control)
        let totalUsers = Double(variant.users + control.users)
        let difference = DifferenceEstimate.absolute(variant: variantMoments, control: controlMoments)
        let lift = DifferenceEstimate.relative(variant: variantMoments, control: controlMoments)
        return AlwaysValidComparison(
            differenceInterval: sequence.interval(difference, totalUsers: totalUsers),
            relativeLiftInterval: lift.flatMap { sequence.interval($0, totalUsers: totalUsers) },
            pValue: sequence.pValue(difference, totalUsers: totalUsers)
        )
    }
}
