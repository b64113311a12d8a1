import CardinalReports
import Testing

@Suite struct ControlStatisticsTests {
    @Test("The 95% quantile used by every interval is Φ⁻¹(0.975) = 1.959963984540054")
    func quantileOfTheIntervals() {
        #expect(abs(ControlStatistics.z95 - 1.959963984540054) < 1e-15)
    }

    @Test("A single comparison leaves the Holm p-value to compareAll, which fills it in")
    func holmOnlyAcrossVariants() throws {
        let control = ArmCounts(users: 10000, converters: 500)
        let variants = [ArmCounts(users: 10000, converters: 560), ArmCounts(users: 9800, converters: 505)]
        #expect(ControlStatistics.compare(variant: variants[0], control: control).pValueHolm == nil)
        let all = ControlStatistics.compareAll(variants: variants, control: control)
        let first = try #require(all[0].pValue)
        expectClose(all[0].pValueHolm, min(1, 2 * first), tolerance: 1e-15, "Holm of the smaller p-value")
    }

    @Test("An arm without users makes every statistic undefined")
    func emptyArm() {
        let empty = ArmCounts(users: 0, converters: 0)
        let arm = ArmCounts(users: 100, converters: 10)
        #expect(empty.rate == nil)
        #expect(ControlStatistics.compare(variant: empty, control: arm) == VariantComparison())
        #expect(ControlStatistics.compare(variant: arm, control: empty) == VariantComparison())
    }

    @Test("Counts that cannot be (more converters than users, negatives) are treated as no data")
    func inconsistentCounts() {
        let arm = ArmCounts(users: 100, converters: 10)
        for broken in [ArmCounts(users: 10, converters: 11), ArmCounts(users: 10, converters: -1),
                       ArmCounts(users: -5, converters: 0)] {
            #expect(broken.rate == nil)
            #expect(ControlStatistics.compare(variant: broken, control: arm) == VariantComparison())
        }
    }

    @Test("A control arm without conversions has a difference but no relative lift")
    func zeroControlRate() throws {
        let comparison = ControlStatistics.compare(
            variant: ArmCounts(users: 200, converters: 6), control: ArmCounts(users: 200, converters: 0)
        )
        expectClose(comparison.difference, 0.03, tolerance: 1e-15, "difference")
        #expect(comparison.differenceCI95 != nil)
        #expect(comparison.relativeLift == nil)
        #expect(comparison.relativeLiftCI95 == nil)
        let z = try #require(comparison.z)
        #expect(z > 0)
        #expect(comparison.chanceToBeatControl != nil)
    }

    @Test("A variant without conversions has a lift of −100% but no Katz interval")
    func zeroVariantRate() {
        let comparison = ControlStatistics.compare(
            variant: ArmCounts(users: 200, converters: 0), control: ArmCounts(users: 200, converters: 8)
        )
        expectClose(comparison.relativeLift, -1, tolerance: 1e-15, "lift")
        #expect(comparison.relativeLiftCI95 == nil)
    }

    @Test("When nobody converted in either arm there is no test, yet a difference of 0 with an interval")
    func nobodyConverted() throws {
        let comparison = ControlStatistics.compare(
            variant: ArmCounts(users: 50, converters: 0), control: ArmCounts(users: 80, converters: 0)
        )
        #expect(comparison.difference == 0)
        let interval = try #require(comparison.differenceCI95)
        #expect(interval.lower < 0 && interval.upper > 0)
        #expect(comparison.z == nil && comparison.pValue == nil && comparison.confidence == nil)
        #expect(comparison.relativeLift == nil)
    }

    @Test("When everybody converted in both arms the lift interval collapses to the point and there is no test")
    func everybodyConverted() throws {
        let comparison = ControlStatistics.compare(
            variant: ArmCounts(users: 50, converters: 50), control: ArmCounts(users: 80, converters: 80)
        )
        #expect(comparison.difference == 0)
        #expect(comparison.relativeLift == 0)
        #expect(comparison.relativeLiftCI95 == Interval(lower: 0, upper: 0))
        #expect(comparison.z == nil && comparison.pValue == nil)
        let chance = try #require(comparison.chanceToBeatControl)
        #expect(chance > 0 && chance < 1)
    }

    @Test("No combination of small arms yields NaN, infinity, a reversed interval or a probability outside [0, 1]")
    func noNaNLeaks() {
        for variantUsers in 0...6 {
            for variantConverters in 0...variantUsers {
                for controlUsers in 0...6 {
                    for controlConverters in 0...controlUsers {
                        let variant = ArmCounts(users: variantUsers, converters: variantConverters)
                        let control = ArmCounts(users: controlUsers, converters: controlConverters)
                        expectWellFormed(ControlStatistics.compare(variant: variant, control: control),
                                         "\(variant) against \(control)")
                    }
                }
            }
        }
    }

    private func expectWellFormed(_ comparison: VariantComparison, _ label: String) {
        let values = [comparison.difference, comparison.relativeLift, comparison.z, comparison.pValue,
                      comparison.confidence, comparison.chanceToBeatControl].compactMap { $0 }
        #expect(values.allSatisfy { $0.isFinite }, "\(label): \(comparison)")
        let probabilities = [comparison.pValue, comparison.confidence, comparison.chanceToBeatControl].compactMap { $0 }
        #expect(probabilities.allSatisfy { (0...1).contains($0) }, "\(label): \(comparison)")
        for interval in [comparison.differenceCI95, comparison.relativeLiftCI95].compactMap({ $0 }) {
            #expect(interval.lower.isFinite && interval.upper.isFinite && interval.lower <= interval.upper,
                    "\(label): \(interval)")
        }
    }
}
