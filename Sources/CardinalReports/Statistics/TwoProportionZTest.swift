/// The pooled two-proportion z-test of H₀: p_variant = p_control.
///
/// z = (p̂_v − p̂_c) / √(p̄(1 − p̄)(1/n_v + 1/n_c)), with p̄ = (x_v + x_c)/(n_v + n_c) the rate pooled under
/// H₀ (Fleiss, Levin & Paik, "Statistical Methods for Rates and Proportions", 3rd ed., §2.6.2; statsmodels'
/// `proportions_ztest` with its default pooled variance). It is the test Braze-style reports and most A/B tools
/// quote, and z² equals Pearson's chi-square of the 2×2 table.
enum TwoProportionZTest {
    /// The z statistic, or `nil` when an arm has no users or the pooled rate is 0 or 1.
    ///
    /// A pooled rate of 0 or 1 means both arms are identical at the boundary; the standard error is zero and
    /// z would be 0/0, so the test is reported as not defined instead.
    static func zScore(variant: ArmCounts, control: ArmCounts) -> Double? {
        guard let variantRate = variant.rate, let controlRate = control.rate else { return nil }
        let pooled = Double(variant.converters + control.converters) / Double(variant.users + control.users)
        let variance = pooled * (1 - pooled) * (1 / Double(variant.users) + 1 / Double(control.users))
        guard variance > 0 else { return nil }
        return (variantRate - controlRate) / variance.squareRoot()
    }

    /// The two-sided p-value 2·Φ(−|z|), computed from the lower tail so that it stays accurate when tiny.
    static func twoSidedPValue(z: Double) -> Double {
        min(1, 2 * Distributions.normalCDF(-abs(z)))
    }
}
