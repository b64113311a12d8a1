/// A variant against control on a metric adjusted by CUPED (``CUPEDEstimator``).
public struct CUPEDComparison: Sendable, Equatable {
    /// θ, the regression coefficient of y on x over both arms; 0 when x or y does not vary, and then every
    /// number below is the unadjusted one.
    public var theta: Double
    /// The adjusted difference of means, (ȳ_v − θx̄_v) − (ȳ_c − θx̄_c).
    public var difference: Double
    /// The 95% interval of ``difference``; `nil` when its variance is 0.
    public var differenceCI95: Interval?
    /// ``difference`` over control's unadjusted mean; `nil` when that mean is 0.
    public var relativeLift: Double?
    /// The 95% delta-method interval of ``relativeLift``.
    public var relativeLiftCI95: Interval?
    /// The two-sided p-value of no difference; `nil` when the variance is 0.
    public var pValue: Double?
    /// 1 − Var(adjusted difference)/Var(unadjusted difference): the share of the variance CUPED removed,
    /// about the squared correlation of x and y; `nil` when the unadjusted variance is 0.
    public var varianceReduction: Double?
}
