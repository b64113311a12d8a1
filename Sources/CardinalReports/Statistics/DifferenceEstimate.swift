/// An estimate of the variant's effect over control, absolute or relative, with the variance of the estimator:
/// the normal approximation that the always-valid intervals and CUPED are built on.
///
/// Absolute: d = m_v − m_c with Var = s²_v/n_v + s²_c/n_c (unpooled, Welch). Relative: d = (m_v − m_c)/μ_c,
/// with μ the unadjusted means and, by the delta method,
///
///     Var = s²_v/(μ_c² n_v) + s²_c μ_v²/(μ_c⁴ n_c),
///
/// the definitions of gbstats' `frequentist_diff` and `frequentist_variance` (GrowthBook, packages/stats),
/// which the comparison tests hold us to. The relative variance treats μ_c as known in the numerator's spread
/// and carries its own noise through μ_v²/μ_c⁴, the first-order expansion of a ratio of means.
struct DifferenceEstimate {
    /// The point estimate.
    let estimate: Double
    /// The variance of the estimator (not per user).
    let variance: Double

    /// The standard error √Var.
    var standardError: Double { variance.squareRoot() }

    /// m_v − m_c.
    static func absolute(variant: ArmMoments, control: ArmMoments) -> DifferenceEstimate {
        DifferenceEstimate(estimate: variant.mean - control.mean,
                           variance: variant.variance / variant.users + control.variance / control.users)
    }

    /// (m_v − m_c)/μ_c; `nil` when control's unadjusted mean is 0, where a lift is undefined.
    static func relative(variant: ArmMoments, control: ArmMoments) -> DifferenceEstimate? {
        let base = control.unadjustedMean
        guard base != 0 else { return nil }
        let baseSquared = base * base
        let variance = variant.variance / (baseSquared * variant.users)
            + control.variance * variant.unadjustedMean * variant.unadjustedMean / (baseSquared * baseSquared * control.users)
        return DifferenceEstimate(estimate: (variant.mean - control.mean) / base, variance: variance)
    }

    /// The two-sided normal interval estimate ± z·√Var.
    func interval(z: Double) -> Interval {
        let halfWidth = z * standardError
        return Interval(lower: estimate - halfWidth, upper: estimate + halfWidth)
    }

    /// The two-sided normal p-value of H₀: effect = 0; `nil` when the variance is not positive.
    var pValue: Double? {
        guard variance > 0 else { return nil }
        return TwoProportionZTest.twoSidedPValue(z: estimate / standardError)
    }
}
