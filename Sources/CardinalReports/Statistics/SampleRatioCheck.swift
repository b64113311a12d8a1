/// A sample ratio mismatch (SRM) check: are the arm sizes consistent with the split the campaign was configured
/// with?
///
/// Pearson's chi-square goodness-of-fit test of the observed arm sizes against the expected counts N·wᵢ/Σw,
/// with k − 1 degrees of freedom (R. Kohavi et al., "Trustworthy Online Controlled Experiments", 2020, ch. 21;
/// Fabijan et al., "Diagnosing Sample Ratio Mismatch in Online Controlled Experiments", KDD 2019). A mismatch
/// means the assignment or the logging is broken, most often lost control impressions from a custom UI, and
/// that the comparison itself cannot be trusted. The threshold is strict, p < 0.001 (DOMAIN.md), because the
/// check runs on every campaign on every report run and a healthy one should raise a false alarm only once in
/// a thousand.
public struct SampleRatioCheck: Sendable, Equatable {
    /// Pearson's statistic Σ (observed − expected)² / expected.
    public var chi2: Double
    /// Arms − 1.
    public var degreesOfFreedom: Int
    /// P(χ²(degreesOfFreedom) > chi2).
    public var pValue: Double
    /// Whether `pValue` is below ``mismatchThreshold``.
    public var mismatch: Bool

    /// Creates a check result.
    public init(chi2: Double, degreesOfFreedom: Int, pValue: Double, mismatch: Bool) {
        self.chi2 = chi2
        self.degreesOfFreedom = degreesOfFreedom
        self.pValue = pValue
        self.mismatch = mismatch
    }

    /// p-values below this flag a mismatch.
    public static let mismatchThreshold = 0.001

    /// Expected counts below this make the chi-square approximation unreliable, so the check is skipped
    /// (Cochran's rule of thumb asks for 5; DOMAIN.md asks for 8, erring on the side of silence).
    public static let minimumExpectedCount = 8.0

    /// Runs the check.
    ///
    /// - Parameters:
    ///   - observed: Users per arm (never negative).
    ///   - expectedWeights: The configured share of each arm, in the same order; they need not sum to 1 because
    ///     they are normalized. Must have as many entries as `observed`.
    /// - Returns: `.checked` with the result, or `.skipped` with the reason when there are fewer than two arms,
    ///   the weights are not usable (negative, not finite, or summing to 0), or an expected count is below
    ///   ``minimumExpectedCount``.
    public static func evaluate(observed: [Int], expectedWeights: [Double]) -> SampleRatioOutcome {
        precondition(observed.count == expectedWeights.count,
                     "SRM needs one weight per arm: \(observed.count) arms, \(expectedWeights.count) weights")
        precondition(observed.allSatisfy { $0 >= 0 }, "arm sizes cannot be negative: \(observed)")
        guard observed.count >= 2 else { return .skipped(.fewerThanTwoArms(arms: observed.count)) }
        let weightSum = expectedWeights.reduce(0, +)
        guard expectedWeights.allSatisfy({ $0.isFinite && $0 >= 0 }), weightSum > 0, weightSum.isFinite else {
            return .skipped(.invalidWeights(expectedWeights))
        }
        let total = Double(observed.reduce(0, +))
        let expected = expectedWeights.map { total * $0 / weightSum }
        if let small = expected.indices.first(where: { expected[$0] < minimumExpectedCount }) {
            return .skipped(.expectedCountTooSmall(arm: small, expected: expected[small]))
        }
        let chi2 = zip(observed, expected).reduce(0.0) { sum, pair in
            let deviation = Double(pair.0) - pair.1
            return sum + deviation * deviation / pair.1
        }
        let degreesOfFreedom = observed.count - 1
        let pValue = Distributions.chiSquareSurvival(chi2, degreesOfFreedom: degreesOfFreedom)
        return .checked(SampleRatioCheck(
            chi2: chi2, degreesOfFreedom: degreesOfFreedom, pValue: pValue, mismatch: pValue < mismatchThreshold
        ))
    }
}
