/// The statistics of the control-group report: each variant of a campaign against its control arm.
///
/// The set follows what GrowthBook, Eppo, Statsig and Optimizely report (see DOMAIN.md): a frequentist test
/// (pooled z), intervals for the absolute difference (Newcombe) and the relative lift (Katz), Braze's
/// "confidence" Φ(z), the Bayesian chance to beat control, and Holm's correction because a campaign compares
/// up to eight variants against the same control. Reference values from scipy and statsmodels are matched to
/// 1e−6 by the tests.
public enum ControlStatistics {
    /// The two-sided 95% normal quantile Φ⁻¹(0.975) ≈ 1.959964 that every interval here uses.
    public static let z95 = Distributions.normalQuantile(0.975)

    /// The 95% confidence sequence of the always-valid numbers, with GrowthBook's tuning (see
    /// ``ConfidenceSequence/tuning``).
    static let sequence = ConfidenceSequence()

    /// Compares one variant with control.
    ///
    /// - Parameters:
    ///   - variant: Matured users and converters of the variant.
    ///   - control: Matured users and converters of control.
    /// - Returns: The comparison, with ``VariantComparison/pValueHolm`` and ``AlwaysValidComparison/pValueHolm``
    ///   left `nil` because the adjustment needs the other variants (see ``compareAll(variants:control:)``).
    ///   Fields that are undefined for these counts are `nil`, as documented on ``VariantComparison``.
    public static func compare(variant: ArmCounts, control: ArmCounts) -> VariantComparison {
        guard let variantRate = variant.rate, let controlRate = control.rate else { return VariantComparison() }
        let difference = variantRate - controlRate
        let z = TwoProportionZTest.zScore(variant: variant, control: control)
        return VariantComparison(
            difference: difference,
            differenceCI95: NewcombeInterval.difference(variant: variant, control: control, z: z95),
            relativeLift: controlRate > 0 ? difference / controlRate : nil,
            relativeLiftCI95: KatzInterval.relativeLift(variant: variant, control: control, z: z95),
            z: z,
            pValue: z.map { TwoProportionZTest.twoSidedPValue(z: $0) },
            pValueHolm: nil,
            confidence: z.map { Distributions.normalCDF($0) },
            chanceToBeatControl: ChanceToBeatControl.probability(variant: variant, control: control),
            alwaysValid: AlwaysValidComparison.compare(variant: variant, control: control, sequence: sequence)
        )
    }

    /// Compares every variant with control and adjusts their p-values together by Holm's method.
    ///
    /// - Parameters:
    ///   - variants: The variants, in the order the report lists them.
    ///   - control: The control arm they are all compared with.
    /// - Returns: One comparison per variant, in the same order, with ``VariantComparison/pValueHolm`` filled
    ///   in wherever ``VariantComparison/pValue`` is defined.
    public static func compareAll(variants: [ArmCounts], control: ArmCounts) -> [VariantComparison] {
        var comparisons = variants.map { compare(variant: $0, control: control) }
        let adjusted = holm(comparisons.map(\.pValue))
        let adjustedAlwaysValid = holm(comparisons.map(\.alwaysValid.pValue))
        for index in comparisons.indices {
            comparisons[index].pValueHolm = adjusted[index]
            comparisons[index].alwaysValid.pValueHolm = adjustedAlwaysValid[index]
        }
        return comparisons
    }

    /// Compares every variant with control on each of several conversion events, and adjusts all their
    /// p-values together by Holm's method: the family is every variant × event pair given.
    ///
    /// The control report uses it for a campaign's conversion events after the primary one (issue 12). The
    /// primary keeps its own family, the variants of ``compareAll(variants:control:)``, so that its adjusted
    /// p-values mean what they meant before there were further events; the further events are secondary
    /// metrics, and adjusting them as one family keeps the chance of any false positive among them at the
    /// level of one test however many events and variants there are.
    ///
    /// - Parameter events: Per conversion event, the variants and the control arm they are compared with.
    /// - Returns: Per event, one comparison per variant in the same order, with
    ///   ``VariantComparison/pValueHolm`` adjusted over the whole family wherever ``VariantComparison/pValue``
    ///   is defined.
    public static func compareAll(events: [(variants: [ArmCounts], control: ArmCounts)]) -> [[VariantComparison]] {
        var comparisons = events.map { event in event.variants.map { compare(variant: $0, control: event.control) } }
        var adjusted = holm(comparisons.flatMap { $0.map(\.pValue) })[...]
        var adjustedAlwaysValid = holm(comparisons.flatMap { $0.map(\.alwaysValid.pValue) })[...]
        for event in comparisons.indices {
            for variant in comparisons[event].indices {
                comparisons[event][variant].pValueHolm = adjusted.removeFirst()
                comparisons[event][variant].alwaysValid.pValueHolm = adjustedAlwaysValid.removeFirst()
            }
        }
        return comparisons
    }
}
