import Foundation

/// The probability distributions behind the control-group report: the standard normal, chi-square, gamma and
/// beta functions.
///
/// They are written out here because the package may use only the toolchain's own modules, and none of those
/// offers a statistics library. Accuracy is checked by the tests against scipy: about 1e-15 relative for the
/// normal CDF and log-gamma, and well inside the report's 1e-6 contract everywhere.
public enum Distributions {
    /// The standard normal cumulative distribution function Φ(x) = P(Z ≤ x).
    ///
    /// Computed through Φ(x) = ½·erfc(−x/√2) and erfc(y) = Q(½, y²) (Abramowitz & Stegun 7.1.2 and 6.5.17),
    /// so it reuses the incomplete-gamma code below instead of another table of coefficients. The tail that is
    /// computed directly (never as 1 − something) keeps its relative precision: Φ(−37.5) ≈ 4.6e−308 is exact to
    /// a few ulps, which the p-values of very large experiments need.
    ///
    /// - Parameter x: Any value; ±∞ give 0 and 1.
    /// - Returns: Φ(x) in [0, 1]; NaN only when `x` is NaN.
    public static func normalCDF(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        let gamma = regularizedGamma(0.5, 0.5 * x * x)
        return x < 0 ? 0.5 * gamma.upper : 0.5 + 0.5 * gamma.lower
    }

    /// The standard normal quantile Φ⁻¹(p), the inverse of ``normalCDF(_:)``.
    ///
    /// Peter J. Acklam's rational approximation ("An algorithm for computing the inverse normal cumulative
    /// distribution function", 2003; relative error below 1.15e−9), then one Halley step against
    /// ``normalCDF(_:)`` as Acklam recommends, which brings it to full double precision. Only the lower half is
    /// computed, Φ⁻¹(p) = −Φ⁻¹(1 − p) giving the upper half: 1 − p is exact for p ≥ ½, and the refinement is
    /// accurate in relative terms only where Φ(x) is small.
    ///
    /// - Parameter p: A probability in [0, 1]; anything else is a programmer error.
    /// - Returns: The quantile; −∞ for 0 and +∞ for 1.
    public static func normalQuantile(_ p: Double) -> Double {
        precondition(p >= 0 && p <= 1, "normalQuantile needs a probability in [0, 1], got \(p)")
        if p > 0.5 { return -normalQuantile(1 - p) }
        if p == 0 { return -.infinity }
        let approximation = acklamLowerHalf(p)
        // Below about 1e−300 the density underflows and the Halley step would divide by zero; Acklam's
        // approximation alone is still good to 1.15e−9 relative there.
        let density = exp(-0.5 * approximation * approximation) / (2 * Double.pi).squareRoot()
        guard density.isNormal else { return approximation }
        let u = (normalCDF(approximation) - p) / density
        return approximation - u / (1 + 0.5 * approximation * u)
    }

    /// Acklam's approximation for 0 < p ≤ ½: a rational function of p − ½ in the central region and of
    /// √(−2 ln p) in the tail below `acklamLowerRegionEnd`.
    private static func acklamLowerHalf(_ p: Double) -> Double {
        if p < acklamLowerRegionEnd {
            let q = (-2 * log(p)).squareRoot()
            return evaluate(acklamC, at: q) / (evaluate(acklamD, at: q) * q + 1)
        }
        let q = p - 0.5
        let r = q * q
        return evaluate(acklamA, at: r) * q / (evaluate(acklamB, at: r) * r + 1)
    }

    /// Horner's rule, coefficients from the highest power down.
    private static func evaluate(_ coefficients: [Double], at x: Double) -> Double {
        coefficients.reduce(0) { $0 * x + $1 }
    }

    /// Where Acklam switches from the central rational function to the tail one.
    private static let acklamLowerRegionEnd = 0.02425

    // Acklam's published coefficients (a1…a6, b1…b5, c1…c6, d1…d4).
    private static let acklamA = [
        -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00,
    ]
    private static let acklamB = [
        -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01,
    ]
    private static let acklamC = [
        -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00,
    ]
    private static let acklamD = [
        7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00,
    ]
}
