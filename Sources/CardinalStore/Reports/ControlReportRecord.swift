public import Foundation

/// One stored row of the control report (`cardinal.report_control`): an arm of a campaign with its counts,
/// its comparison with control (variant arms), the campaign's sample ratio check and significance rule.
///
/// The statistics are computed by CardinalReports; this is their flat, storable form.
public struct ControlReportRecord: Sendable, Equatable {
    /// The arm's counts, as `cardinal.control_arms` returned them.
    public var arm: ControlArmRow
    /// When the report was computed for (the maturity cut-off).
    public var asOf: Date
    /// converters / users, `nil` when undefined.
    public var rate: Double?
    /// The comparison columns, all `nil` on the control arm.
    public var difference: Double?
    /// Newcombe 95% interval of ``difference``, lower bound.
    public var differenceLower: Double?
    /// Newcombe 95% interval of ``difference``, upper bound.
    public var differenceUpper: Double?
    /// Relative lift.
    public var relativeLift: Double?
    /// Katz 95% interval of ``relativeLift``, lower bound.
    public var relativeLiftLower: Double?
    /// Katz 95% interval of ``relativeLift``, upper bound.
    public var relativeLiftUpper: Double?
    /// Pooled z statistic.
    public var z: Double?
    /// Two-sided p-value.
    public var pValue: Double?
    /// Holm-adjusted p-value.
    public var pValueHolm: Double?
    /// Φ(z).
    public var confidence: Double?
    /// P(variant rate > control rate).
    public var chanceToBeatControl: Double?
    /// The campaign's SRM chi-square; `nil` when the check was skipped.
    public var srmChi2: Double?
    /// The campaign's SRM degrees of freedom.
    public var srmDegreesOfFreedom: Int?
    /// The campaign's SRM p-value.
    public var srmPValue: Double?
    /// Whether the campaign's SRM p-value is below 0.001.
    public var srmMismatch: Bool?
    /// Why the campaign's SRM check was skipped.
    public var srmSkipped: String?
    /// Where the campaign's expected split came from; `nil` only in runs stored before it was recorded.
    public var srmSplitSource: ExpectedSplitSource?
    /// Always-valid 95% interval of ``difference``, lower bound.
    public var alwaysValidDifferenceLower: Double?
    /// Always-valid 95% interval of ``difference``, upper bound.
    public var alwaysValidDifferenceUpper: Double?
    /// Always-valid 95% interval of ``relativeLift``, lower bound.
    public var alwaysValidLiftLower: Double?
    /// Always-valid 95% interval of ``relativeLift``, upper bound.
    public var alwaysValidLiftUpper: Double?
    /// Always-valid p-value.
    public var alwaysValidPValue: Double?
    /// Holm-adjusted always-valid p-value.
    public var alwaysValidPValueHolm: Double?
    /// The rule the campaign was judged by (on every row of the campaign).
    public var significance: SignificanceRule?
    /// Where ``significance`` came from.
    public var significanceSource: SignificanceSource?
    /// Whether the variant differs from control under ``significance``.
    public var significant: Bool?
    /// Minimum detectable difference at today's sample.
    public var minimumDetectableDifference: Double?
    /// ``minimumDetectableDifference`` relative to the control rate.
    public var minimumDetectableLift: Double?
    /// CUPED's pre-exposure window of the campaign (on every row of the campaign); `nil` when the run did not
    /// compute CUPED.
    public var cupedWindow: CUPEDWindow?
    /// CUPED's θ, the regression coefficient of conversion on the covariate over both arms.
    public var cupedTheta: Double?
    /// The CUPED-adjusted difference.
    public var cupedDifference: Double?
    /// 95% interval of ``cupedDifference``, lower bound.
    public var cupedDifferenceLower: Double?
    /// 95% interval of ``cupedDifference``, upper bound.
    public var cupedDifferenceUpper: Double?
    /// ``cupedDifference`` relative to control's unadjusted rate.
    public var cupedLift: Double?
    /// 95% interval of ``cupedLift``, lower bound.
    public var cupedLiftLower: Double?
    /// 95% interval of ``cupedLift``, upper bound.
    public var cupedLiftUpper: Double?
    /// Two-sided p-value of ``cupedDifference``, not Holm-adjusted.
    public var cupedPValue: Double?
    /// The share of the difference's variance CUPED removed.
    public var cupedVarianceReduction: Double?

    /// Creates a record of `arm`; every statistic starts undefined.
    public init(arm: ControlArmRow, asOf: Date) {
        self.arm = arm
        self.asOf = asOf
    }
}
