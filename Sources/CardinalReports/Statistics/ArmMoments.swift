/// One arm's metric as an unpooled test reads it: users, mean and per-user variance.
///
/// The pooled z-test of ``TwoProportionZTest`` estimates one variance for both arms under H₀; the always-valid
/// intervals and CUPED need each arm's own variance instead (GrowthBook's gbstats and Howard et al. work with
/// that unpooled Welch form), so an arm is reduced to these three numbers. ``unadjustedMean`` is the arm's
/// plain mean: the relative lift divides by control's plain rate even when ``mean`` is CUPED-adjusted, as
/// gbstats does, so that the lift stays a share of what control really converted.
struct ArmMoments {
    /// The arm's users n.
    let users: Double
    /// The metric's mean, CUPED-adjusted or not.
    let mean: Double
    /// The per-user variance of the metric whose mean is ``mean``.
    let variance: Double
    /// The plain (never adjusted) mean.
    let unadjustedMean: Double

    /// The moments of a conversion rate: mean p̂ = x/n and the Bernoulli variance p̂(1 − p̂), without Bessel's
    /// correction (gbstats' `ProportionStatistic`).
    ///
    /// - Precondition: `arm` has consistent counts (see ``ArmCounts/rate``).
    init(proportion arm: ArmCounts) {
        let rate = Double(arm.converters) / Double(arm.users)
        self.init(users: Double(arm.users), mean: rate, variance: rate * (1 - rate), unadjustedMean: rate)
    }

    /// Creates the moments of an arm.
    init(users: Double, mean: Double, variance: Double, unadjustedMean: Double) {
        self.users = users
        self.mean = mean
        self.variance = variance
        self.unadjustedMean = unadjustedMean
    }
}
