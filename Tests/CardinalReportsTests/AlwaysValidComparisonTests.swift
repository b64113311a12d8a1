import CardinalReports
import CardinalStore
import Testing

/// The always-valid numbers on an example worked by hand (docs/experiment-statistics.md): control 500 of
/// 10,000, variant 600 of 10,000. ρ² = (−2 ln 0.05 + ln(1 − 2 ln 0.05))/5000 = (5.991465 + 1.944702)/5000 =
/// 0.00158723; N = 20,000, Nρ² = 31.7446; V = 0.06·0.94/10⁴ + 0.05·0.95/10⁴ = 1.039e−5; the half-width
/// √V·√(2·32.7446·ln(√32.7446/0.05)/31.7446) = 0.0032234·3.12706 = 0.0100798; the e-value
/// exp(ρ²·(0.01²·20000/1.039e−5)/(2·32.7446))/√32.7446 = exp(4.66535)/5.72229 = 18.5596 (p = 0.0538806).
@Suite struct AlwaysValidComparisonTests {
    private let comparison = ControlStatistics.compareAll(
        variants: [ArmCounts(users: 10000, converters: 600)], control: ArmCounts(users: 10000, converters: 500)
    )[0]

    @Test("The always-valid interval of the difference is 0.01 ± 0.0100798")
    func differenceInterval() {
        expectClose(comparison.alwaysValid.differenceInterval, [-0.0000797905, 0.0200797905], tolerance: 1e-9,
                    "difference")
    }

    @Test("The always-valid interval of the lift is 0.2 ± 0.2209434 (delta method, symmetric)")
    func relativeLiftInterval() {
        expectClose(comparison.alwaysValid.relativeLiftInterval, [-0.0209433946, 0.4209433946], tolerance: 1e-9,
                    "lift")
    }

    @Test("The always-valid p-value is 1/18.5596 = 0.0538806, where the fixed-horizon one is far below 0.05")
    func pValue() throws {
        expectClose(comparison.alwaysValid.pValue, 0.0538805876, tolerance: 1e-9, "always-valid p")
        expectClose(comparison.alwaysValid.pValueHolm, 0.0538805876, tolerance: 1e-9, "Holm of one variant")
        #expect(try #require(comparison.pValue) < 0.005)
    }

    @Test("The two rules disagree on this example: significant at a fixed horizon, not yet always-valid")
    func rulesDisagree() {
        #expect(SignificanceRule.fixed.isSignificant(comparison) == true)
        #expect(SignificanceRule.sequential.isSignificant(comparison) == false)
    }

    @Test("The always-valid interval is wider than the fixed-horizon one and contains it")
    func widerThanFixedHorizon() throws {
        let sequential = try #require(comparison.alwaysValid.differenceInterval)
        let fixed = try #require(comparison.differenceCI95)
        #expect(sequential.lower < fixed.lower && sequential.upper > fixed.upper)
    }

    @Test("Arms where nobody converted have no always-valid numbers, and no significance")
    func nothingVaries() {
        let flat = ControlStatistics.compareAll(
            variants: [ArmCounts(users: 300, converters: 0)], control: ArmCounts(users: 300, converters: 0)
        )[0]
        #expect(flat.alwaysValid == AlwaysValidComparison())
        #expect(SignificanceRule.sequential.isSignificant(flat) == nil)
    }

    @Test("Holm adjusts the always-valid p-values across the variants like the fixed-horizon ones")
    func holmAcrossVariants() throws {
        let control = ArmCounts(users: 10000, converters: 500)
        let all = ControlStatistics.compareAll(
            variants: [ArmCounts(users: 10000, converters: 600), ArmCounts(users: 10000, converters: 700)],
            control: control
        )
        let smaller = try #require(all[1].alwaysValid.pValue)
        let larger = try #require(all[0].alwaysValid.pValue)
        #expect(smaller < larger)
        expectClose(all[1].alwaysValid.pValueHolm, min(1, 2 * smaller), tolerance: 1e-15, "Holm of the smaller")
        expectClose(all[0].alwaysValid.pValueHolm, max(min(1, 2 * smaller), larger), tolerance: 1e-15,
                    "Holm of the larger")
    }
}
