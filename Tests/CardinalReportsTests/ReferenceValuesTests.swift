import CardinalReports
import Testing

/// Every case and every field of `Fixtures/stats-reference.json` that the report computes, to 1e−6 absolute.
@Suite struct ReferenceValuesTests {
    /// The comparisons of one reference case, computed the way the report computes them.
    private struct ComputedCase {
        let reference: ReferenceFixture.Case
        let control: ArmCounts
        let variants: [(reference: ReferenceFixture.Variant, arm: ArmCounts, comparison: VariantComparison)]

        init(_ reference: ReferenceFixture.Case) throws {
            self.reference = reference
            control = try reference.control().counts
            let arms = try reference.variants.map { try reference.arm(of: $0).counts }
            let comparisons = ControlStatistics.compareAll(variants: arms, control: control)
            variants = reference.variants.indices.map { (reference.variants[$0], arms[$0], comparisons[$0]) }
        }
    }

    private func computedCases() throws -> [ComputedCase] {
        let fixture = try ReferenceFixture.load()
        // Guards against a fixture that decodes to nothing and lets every loop below pass vacuously.
        #expect(fixture.cases.count == 12)
        #expect(fixture.cases.map(\.variants.count).reduce(0, +) == 53)
        return try fixture.cases.map(ComputedCase.init)
    }

    @Test("Rates, differences and relative lifts match the reference")
    func ratesAndLifts() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            for variant in computed.variants {
                let label = "case \(caseIndex) \(variant.reference.name)"
                expectClose(variant.arm.rate, variant.reference.rate, "\(label) rate")
                expectClose(computed.control.rate, variant.reference.controlRate, "\(label) control rate")
                expectClose(variant.comparison.difference, variant.reference.difference, "\(label) difference")
                expectClose(variant.comparison.relativeLift, variant.reference.relativeLift, "\(label) relative lift")
            }
        }
    }

    @Test("The pooled z statistic, its p-value and Braze's confidence match the reference")
    func pooledZTest() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            for variant in computed.variants {
                let label = "case \(caseIndex) \(variant.reference.name)"
                expectClose(variant.comparison.z, variant.reference.z, "\(label) z")
                expectClose(variant.comparison.pValue, variant.reference.pValuePooledZ, "\(label) p-value")
                expectClose(variant.comparison.confidence, variant.reference.confidenceBraze, "\(label) confidence")
            }
        }
    }

    @Test("Tiny p-values keep their relative precision, not only the absolute tolerance")
    func tinyPValuesAreRelativelyPrecise() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            for variant in computed.variants {
                let pValue = try #require(variant.comparison.pValue)
                expectRelativelyClose(pValue, variant.reference.pValuePooledZ, relative: 1e-9,
                                      "case \(caseIndex) \(variant.reference.name) p-value")
            }
            let check = try #require(SampleRatioCheck.evaluate(
                observed: computed.reference.arms.map(\.users),
                expectedWeights: computed.reference.arms.map(\.weight)
            ).check)
            expectRelativelyClose(check.pValue, computed.reference.srm.pValue, relative: 1e-9,
                                  "case \(caseIndex) SRM p-value")
        }
    }

    @Test("Newcombe's interval for the difference and Katz's interval for the lift match the reference")
    func intervals() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            for variant in computed.variants {
                let label = "case \(caseIndex) \(variant.reference.name)"
                expectClose(variant.comparison.differenceCI95, variant.reference.differenceCi95Newcombe,
                            "\(label) Newcombe interval")
                expectClose(variant.comparison.relativeLiftCI95, variant.reference.relativeLiftCi95Katz,
                            "\(label) Katz interval")
            }
        }
    }

    @Test("The exact chance to beat control matches the reference")
    func chanceToBeatControl() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            for variant in computed.variants {
                expectClose(variant.comparison.chanceToBeatControl, variant.reference.chanceToBeatControlBeta,
                            "case \(caseIndex) \(variant.reference.name) chance to beat control")
            }
        }
    }

    @Test("Holm-adjusted p-values across the variants of a case match the reference")
    func holmAdjustedPValues() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            for variant in computed.variants {
                expectClose(variant.comparison.pValueHolm, variant.reference.pValueHolm,
                            "case \(caseIndex) \(variant.reference.name) Holm p-value")
            }
        }
    }

    @Test("The sample ratio check matches the reference chi-square, degrees of freedom and p-value")
    func sampleRatioMismatch() throws {
        for (caseIndex, computed) in try computedCases().enumerated() {
            let srm = computed.reference.srm
            let outcome = SampleRatioCheck.evaluate(
                observed: computed.reference.arms.map(\.users),
                expectedWeights: computed.reference.arms.map(\.weight)
            )
            let check = try #require(outcome.check, "case \(caseIndex) was skipped: \(outcome)")
            expectClose(check.chi2, srm.chi2, "case \(caseIndex) SRM chi-square")
            #expect(check.degreesOfFreedom == srm.df, "case \(caseIndex) SRM degrees of freedom")
            expectClose(check.pValue, srm.pValue, "case \(caseIndex) SRM p-value")
            #expect(check.mismatch == (srm.pValue < 0.001), "case \(caseIndex) SRM mismatch flag")
        }
    }
}
