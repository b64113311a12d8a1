/// CUPED: a variant against control on a metric y, adjusted by regression on a pre-exposure covariate x.
///
/// A. Deng, Y. Xu, R. Kohavi, T. Walker, "Improving the sensitivity of online controlled experiments by
/// utilizing pre-experiment data", WSDM 2013. Each arm's mean becomes ȳ − θx̄ with one θ for both arms,
///
///     θ = Cov(x, y)/Var(x) over the users of both arms pooled,
///
/// which keeps the difference unbiased (x is measured before exposure, so its arm means differ only by
/// chance) and shrinks the variance of each arm's adjusted metric to Var(y) + θ²Var(x) − 2θCov(x, y). The
/// interval and p-value are then the normal ones of ``DifferenceEstimate`` on the adjusted moments, with the
/// relative lift divided by control's unadjusted mean; this is the estimator of GrowthBook's gbstats
/// (`RegressionAdjustedStatistic`, `compute_theta`), which the comparison tests hold it to. gbstats uses a
/// Student t quantile with Welch's degrees of freedom, we use the normal one: at the sample sizes where CUPED is
/// worth running the two differ in the fourth digit of the interval.
///
/// Pure logic on sums: the control report gives it each arm's sums from `cardinal.control_arm_covariates`
/// (``ControlReport/adjusted(_:by:)``), the pre-exposure conversions of the same event as x.
public enum CUPEDEstimator {
    /// Compares a variant with control; `nil` when an arm has fewer than two users, where no variance exists.
    public static func compare(variant: CovariateSums, control: CovariateSums) -> CUPEDComparison? {
        guard variant.users > 1, control.users > 1 else { return nil }
        let theta = theta(variant + control)
        let adjustedVariant = moments(variant, theta: theta)
        let adjustedControl = moments(control, theta: theta)
        let difference = DifferenceEstimate.absolute(variant: adjustedVariant, control: adjustedControl)
        let unadjusted = DifferenceEstimate.absolute(variant: moments(variant, theta: 0),
                                                     control: moments(control, theta: 0))
        let lift = DifferenceEstimate.relative(variant: adjustedVariant, control: adjustedControl)
        let z = ControlStatistics.z95
        return CUPEDComparison(
            theta: theta,
            difference: difference.estimate,
            differenceCI95: difference.variance > 0 ? difference.interval(z: z) : nil,
            relativeLift: lift?.estimate,
            relativeLiftCI95: lift.flatMap { $0.variance > 0 ? $0.interval(z: z) : nil },
            pValue: difference.pValue,
            varianceReduction: unadjusted.variance > 0 ? 1 - difference.variance / unadjusted.variance : nil
        )
    }

    /// θ = Cov(x, y)/Var(x) on both arms' users together; 0 when x or y does not vary (nothing to regress on,
    /// or nothing to explain), as gbstats falls back to the unadjusted test.
    static func theta(_ pooled: CovariateSums) -> Double {
        let varianceX = pooled.varianceX
        guard varianceX > 0, pooled.varianceY > 0 else { return 0 }
        return pooled.covarianceXY / varianceX
    }

    /// An arm's moments of y − θx.
    private static func moments(_ arm: CovariateSums, theta: Double) -> ArmMoments {
        let n = Double(arm.users)
        let meanY = arm.sumY / n
        return ArmMoments(
            users: n, mean: meanY - theta * arm.sumX / n,
            variance: arm.varianceY + theta * theta * arm.varianceX - 2 * theta * arm.covarianceXY,
            unadjustedMean: meanY
        )
    }
}
