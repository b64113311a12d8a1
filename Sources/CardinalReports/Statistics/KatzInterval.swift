import Foundation

/// Katz's log risk-ratio interval, used for the relative lift (p_v − p_c)/p_c = RR − 1.
///
/// D. Katz, J. Baptista, S. P. Azen & M. C. Pike, "Obtaining confidence intervals for the risk ratio in cohort
/// studies", Biometrics 34 (1978) 469–474. ln RR is close to normal with variance
///
///     (1 − p̂_v)/x_v + (1 − p̂_c)/x_c = 1/x_v − 1/n_v + 1/x_c − 1/n_c,
///
/// so the interval exp(ln RR ± z·se) − 1 is asymmetric around the lift, as a ratio's should be, and never
/// goes below −100%.
enum KatzInterval {
    /// The 95% (or other, through `z`) interval for the relative lift.
    ///
    /// - Parameters:
    ///   - variant: The variant arm.
    ///   - control: The control arm.
    ///   - z: The two-sided normal quantile, 1.959964 for 95%.
    /// - Returns: `nil` when an arm has no users or no converters, because ln 0 and 1/x_v are undefined. When
    ///   everybody converted in both arms the variance is 0 and the interval collapses to the point estimate.
    static func relativeLift(variant: ArmCounts, control: ArmCounts, z: Double) -> Interval? {
        guard let variantRate = variant.rate, let controlRate = control.rate,
              variant.converters > 0, control.converters > 0
        else { return nil }
        let logRiskRatio = log(variantRate / controlRate)
        let variance = 1 / Double(variant.converters) - 1 / Double(variant.users)
            + 1 / Double(control.converters) - 1 / Double(control.users)
        // Each pair 1/x − 1/n is ≥ 0; rounding must not turn a zero variance into a tiny negative one.
        let halfWidth = z * max(0, variance).squareRoot()
        return Interval(lower: exp(logRiskRatio - halfWidth) - 1, upper: exp(logRiskRatio + halfWidth) - 1)
    }
}
