/// Newcombe's hybrid score interval for a difference of two independent proportions.
///
/// R. G. Newcombe, "Interval estimation for the difference between independent proportions: comparison of
/// eleven methods", Statistics in Medicine 17 (1998) 873–890, method 10. Each rate gets its Wilson score
/// interval, and the two are combined as
///
///     L = d − √((p̂_v − l_v)² + (u_c − p̂_c)²),   U = d + √((u_v − p̂_v)² + (p̂_c − l_c)²),   d = p̂_v − p̂_c.
///
/// Unlike the Wald interval it keeps close to its nominal coverage for small arms and for rates near 0 or 1,
/// and it is defined for every non-empty arm, including arms where nobody or everybody converted.
enum NewcombeInterval {
    /// The Wilson score interval for a single proportion (E. B. Wilson, JASA 22, 1927), without continuity
    /// correction:
    ///
    ///     (x + z²/2)/(n + z²) ± z·√n/(n + z²) · √(p̂(1 − p̂) + z²/(4n)).
    ///
    /// - Precondition: `arm` has consistent counts (see ``ArmCounts/rate``).
    static func wilson(_ arm: ArmCounts, z: Double) -> Interval {
        let n = Double(arm.users)
        let rate = Double(arm.converters) / n
        let zSquared = z * z
        let denominator = n + zSquared
        let center = (Double(arm.converters) + zSquared / 2) / denominator
        let halfWidth = z * n.squareRoot() / denominator * (rate * (1 - rate) + zSquared / (4 * n)).squareRoot()
        // The bounds are mathematically inside [0, 1]; rounding can push them out by an ulp at x = 0 or x = n.
        return Interval(lower: max(0, center - halfWidth), upper: min(1, center + halfWidth))
    }

    /// The interval for p_variant − p_control, or `nil` when either arm has no users.
    ///
    /// - Parameters:
    ///   - variant: The variant arm.
    ///   - control: The control arm.
    ///   - z: The two-sided normal quantile, 1.959964 for 95%.
    static func difference(variant: ArmCounts, control: ArmCounts, z: Double) -> Interval? {
        guard let variantRate = variant.rate, let controlRate = control.rate else { return nil }
        let variantInterval = wilson(variant, z: z)
        let controlInterval = wilson(control, z: z)
        let difference = variantRate - controlRate
        let lowerReach = hypot(variantRate - variantInterval.lower, controlInterval.upper - controlRate)
        let upperReach = hypot(variantInterval.upper - variantRate, controlRate - controlInterval.lower)
        return Interval(lower: difference - lowerReach, upper: difference + upperReach)
    }

    /// √(a² + b²); both arguments are at most 1, so the plain formula cannot overflow.
    private static func hypot(_ a: Double, _ b: Double) -> Double {
        (a * a + b * b).squareRoot()
    }
}
