import Foundation

/// Howard et al.'s asymptotic confidence sequence for an effect estimated from a growing sample: an interval
/// that covers the true effect at every look at once with probability ≥ 1 − α, so a report read every morning
/// can be acted on whenever it excludes zero.
///
/// S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
/// sequences", Ann. Statist. 49 (2021); in the asymptotic form of I. Waudby-Smith et al., "Time-uniform central
/// limit theory and asymptotic confidence sequences" (arXiv 2103.06476v7), eq. 9, which is what GrowthBook's
/// gbstats implements (`SequentialTwoSidedTTest`). With N the users of both arms and V the estimator's variance
/// (``DifferenceEstimate``), the half-width is
///
///     √V · √( 2(Nρ² + 1) · ln(√(Nρ² + 1)/α) / (Nρ²) ),
///
/// and the always-valid p-value is 1/e, the reciprocal of the e-value (eq. 155)
///
///     e = exp( ρ²·N·d²/V / (2(Nρ² + 1)) ) / √(Nρ² + 1),
///
/// so p ≤ α exactly when the interval excludes 0. Unlike a fixed-horizon p-value it is not uniform under H₀:
/// P(p ≤ α at any look) ≤ α.
struct ConfidenceSequence {
    /// GrowthBook's `sequential_tuning_parameter` default: the total sample N* at which the sequence is
    /// tightest. See ``tuning``.
    static let growthBookTuning = 5000.0

    /// N*, the total users (both arms) at which the sequence is narrowest relative to a fixed-horizon interval.
    ///
    /// ρ is chosen by Waudby-Smith et al.'s eq. 161 so that the boundary is tightest at N*; the width grows only
    /// slowly (like √(ln N)) away from it, so N* needs to be right within an order of magnitude, not exactly.
    /// We keep gbstats' 5000: Cardinal's control comparisons typically read between a few thousand and a few
    /// hundred thousand matured users, and a sequence tuned for the small end keeps the early days (when a
    /// broken variant should be stopped) usable: at α = 0.05 it is 1.55 times as wide as the fixed-horizon
    /// interval at 5,000 users, 1.72 times at 1,000 and 1.70 times at 100,000, where a sequence tuned for
    /// 100,000 would be 10 % narrower. Keeping GrowthBook's value also lets the comparison tests match its
    /// numbers.
    let tuning: Double
    /// The error rate α over all looks together.
    let alpha: Double

    /// A sequence with gbstats' tuning and α = 0.05 unless told otherwise.
    init(tuning: Double = growthBookTuning, alpha: Double = 0.05) {
        precondition(tuning > 0 && alpha > 0 && alpha < 1, "a confidence sequence needs N* > 0 and 0 < α < 1")
        self.tuning = tuning
        self.alpha = alpha
    }

    /// ρ² = (−2 ln α + ln(1 − 2 ln α)) / N*, eq. 161 of Waudby-Smith et al.
    var rhoSquared: Double {
        let minusTwoLogAlpha = -2 * log(alpha)
        return (minusTwoLogAlpha + log(minusTwoLogAlpha + 1)) / tuning
    }

    /// The always-valid interval around `effect`, read when `totalUsers` users of both arms are counted; `nil`
    /// when the variance is not positive (nothing varies, so there is nothing to bound).
    func interval(_ effect: DifferenceEstimate, totalUsers: Double) -> Interval? {
        guard effect.variance > 0, totalUsers > 0 else { return nil }
        let nRho = totalUsers * rhoSquared
        let halfWidth = effect.standardError
            * (2 * (nRho + 1) * log((nRho + 1).squareRoot() / alpha) / nRho).squareRoot()
        return Interval(lower: effect.estimate - halfWidth, upper: effect.estimate + halfWidth)
    }

    /// The always-valid p-value of H₀: effect = 0, min(1, 1/e); `nil` when the variance is not positive.
    ///
    /// Taken through logarithms, so a large effect gives a tiny p-value instead of exp overflowing to ∞.
    func pValue(_ effect: DifferenceEstimate, totalUsers: Double) -> Double? {
        guard effect.variance > 0, totalUsers > 0 else { return nil }
        let nRho = totalUsers * rhoSquared
        let standardized = effect.estimate * effect.estimate * totalUsers / effect.variance
        let logE = rhoSquared * standardized / (2 * (nRho + 1)) - 0.5 * log(nRho + 1)
        return exp(min(0, -logE))
    }
}
