import Foundation

/// Power and duration of a running comparison of two conversion rates: the smallest effect today's sample can
/// detect, and the users (then days) a given lift needs.
///
/// Two-sided test at α = 0.05 with power 0.8, normal approximation, the variance of both arms taken at the
/// observed control rate p (the usual planning formula: the effect being planned for is unknown, and a
/// variance at p keeps the two answers below consistent, so "days needed" is 0 exactly when the detectable
/// lift is at most the target):
///
///     MDE = (z₁₋α/₂ + z_power) · √(p(1 − p)(1/n_v + 1/n_c)),
///     n_c = (z₁₋α/₂ + z_power)² · p(1 − p)(1 + 1/r) / (L·p)²,   n_v = r·n_c,
///
/// with r = n_v/n_c the arms' ratio, kept as it is. These are fixed-horizon figures: an always-valid
/// interval is wider (see ``ConfidenceSequence``), so a team that decides on the sequential numbers should
/// read them as a lower bound.
enum PowerCalculation {
    /// The two-sided error rate planned for.
    static let alpha = 0.05
    /// The chance of detecting an effect of the planned size.
    static let power = 0.8
    /// z₁₋α/₂ + z_power = 1.959964 + 0.841621 = 2.801585.
    static let multiplier = Distributions.normalQuantile(1 - alpha / 2) + Distributions.normalQuantile(power)

    /// The minimum detectable absolute difference; `nil` when an arm has no users or p is 0 or 1 (no
    /// variance to plan with).
    static func minimumDetectableDifference(controlRate: Double, variantUsers: Int, controlUsers: Int) -> Double? {
        let variance = controlRate * (1 - controlRate)
        guard variance > 0, variantUsers > 0, controlUsers > 0 else { return nil }
        return multiplier * (variance * (1 / Double(variantUsers) + 1 / Double(controlUsers))).squareRoot()
    }

    /// The matured users each arm needs for a relative lift `lift` to be detected; `nil` when p is 0 or 1, the
    /// lift is 0, or the ratio is not positive.
    static func usersNeeded(controlRate: Double, lift: Double, ratio: Double) -> (control: Double, variant: Double)? {
        let variance = controlRate * (1 - controlRate)
        let effect = lift * controlRate
        guard variance > 0, effect != 0, ratio > 0 else { return nil }
        let control = multiplier * multiplier * variance * (1 + 1 / ratio) / (effect * effect)
        return (control, ratio * control)
    }
}
