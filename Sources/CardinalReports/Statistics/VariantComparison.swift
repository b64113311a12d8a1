/// A closed interval [lower, upper] of real numbers, used for 95% confidence intervals.
public struct Interval: Sendable, Equatable {
    /// The lower bound.
    public var lower: Double
    /// The upper bound, never below ``lower``.
    public var upper: Double

    /// Creates an interval.
    ///
    /// - Parameters:
    ///   - lower: The lower bound.
    ///   - upper: The upper bound.
    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }
}

/// Everything the control-group report says about one variant against control.
///
/// Every field is optional because each has inputs for which it is undefined; `nil` then stands for "not
/// defined", and the JSON renderer writes it as `null`. No field is ever NaN or infinite. When either arm has
/// no users (or inconsistent counts, see ``ArmCounts``) every field is `nil`.
public struct VariantComparison: Sendable, Equatable {
    /// p_variant − p_control.
    public var difference: Double?
    /// Newcombe's hybrid score 95% interval for ``difference`` (always defined when the difference is).
    public var differenceCI95: Interval?
    /// (p_variant − p_control) / p_control; `nil` when the control rate is 0.
    public var relativeLift: Double?
    /// Katz's log risk-ratio 95% interval for ``relativeLift``; `nil` when either arm has no converters (the
    /// log of a zero rate is undefined).
    public var relativeLiftCI95: Interval?
    /// The pooled two-proportion z statistic; `nil` when nobody or everybody converted in both arms together,
    /// where the pooled standard error is zero and there is nothing to test.
    public var z: Double?
    /// The two-sided p-value of ``z``; `nil` exactly when ``z`` is.
    public var pValue: Double?
    /// ``pValue`` after Holm's step-down adjustment across the variants of the campaign; `nil` when
    /// ``pValue`` is, and on a single comparison made without the others.
    public var pValueHolm: Double?
    /// Braze's "confidence", Φ(z): near 1 when the variant looks better, near 0 when it looks worse; `nil`
    /// exactly when ``z`` is.
    public var confidence: Double?
    /// P(p_variant > p_control) under uniform-prior Beta posteriors, computed exactly.
    public var chanceToBeatControl: Double?
    /// The always-valid interval and p-value beside the fixed-horizon ones above.
    public var alwaysValid: AlwaysValidComparison

    /// Creates a comparison; every field defaults to `nil` (undefined).
    public init(
        difference: Double? = nil,
        differenceCI95: Interval? = nil,
        relativeLift: Double? = nil,
        relativeLiftCI95: Interval? = nil,
        z: Double? = nil,
        pValue: Double? = nil,
        pValueHolm: Double? = nil,
        confidence: Double? = nil,
        chanceToBeatControl: Double? = nil,
        alwaysValid: AlwaysValidComparison = AlwaysValidComparison()
    ) {
        self.difference = difference
        self.differenceCI95 = differenceCI95
        self.relativeLift = relativeLift
        self.relativeLiftCI95 = relativeLiftCI95
        self.z = z
        self.pValue = pValue
        self.pValueHolm = pValueHolm
        self.confidence = confidence
        self.chanceToBeatControl = chanceToBeatControl
        self.alwaysValid = alwaysValid
    }
}
