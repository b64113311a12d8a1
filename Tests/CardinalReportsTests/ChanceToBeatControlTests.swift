@testable import CardinalReports
import Testing

@Suite struct ChanceToBeatControlTests {
    /// Pairs of (variant, control) that stress different summation lengths and both directions.
    private let armPairs: [(ArmCounts, ArmCounts)] = [
        (ArmCounts(users: 40, converters: 3), ArmCounts(users: 30, converters: 5)),
        (ArmCounts(users: 10, converters: 10), ArmCounts(users: 10, converters: 0)),
        (ArmCounts(users: 1000, converters: 999), ArmCounts(users: 1000, converters: 990)),
        (ArmCounts(users: 25000, converters: 2600), ArmCounts(users: 26000, converters: 2500)),
        (ArmCounts(users: 7, converters: 0), ArmCounts(users: 5000, converters: 4000)),
    ]

    @Test("Summing over any of the four posterior parameters gives the same probability to 1e−9")
    func allFormsAgree() throws {
        for (variant, control) in armPairs {
            let forms = try ChanceToBeatControl.SummationParameter.allCases.map {
                try #require(ChanceToBeatControl.probability(variant: variant, control: control, summingOver: $0))
            }
            // The forms start from different log-Beta values, each rounded to about 1e−10 for arms this size.
            for form in forms {
                #expect(abs(form - forms[0]) < 1e-9, "\(variant) against \(control): \(forms)")
            }
        }
    }

    @Test("Beta(2, 1) beats Beta(1, 2) with probability exactly 5/6")
    func closedFormValue() {
        // ∫ 2x · (2x − x²) dx over [0, 1] = 4/3 − 1/2.
        let probability = ChanceToBeatControl.probability(
            variant: ArmCounts(users: 1, converters: 1), control: ArmCounts(users: 1, converters: 0)
        )
        expectClose(probability, 5.0 / 6, tolerance: 1e-15, "P(Beta(2,1) > Beta(1,2))")
    }

    @Test("Values agree with scipy's numerical integration of the two posteriors")
    func matchesNumericalIntegration() {
        // scipy.integrate.quad of beta.pdf(p; α_v, β_v) · beta.cdf(p; α_c, β_c).
        let values: [(ArmCounts, ArmCounts, Double)] = [
            (ArmCounts(users: 40, converters: 3), ArmCounts(users: 30, converters: 5), 0.12158664525367896),
            (ArmCounts(users: 10, converters: 10), ArmCounts(users: 10, converters: 0), 0.9999985824289224),
            (ArmCounts(users: 1_000_000, converters: 1200), ArmCounts(users: 1_000_000, converters: 1100),
             0.9815172071570212),
        ]
        for (variant, control, expected) in values {
            expectClose(ChanceToBeatControl.probability(variant: variant, control: control), expected,
                        tolerance: 1e-10, "\(variant) against \(control)")
        }
    }

    @Test("Arms of a million users at a 50% rate are summed exactly")
    func millionUserArms() {
        let probability = ChanceToBeatControl.probability(
            variant: ArmCounts(users: 1_000_000, converters: 500_000),
            control: ArmCounts(users: 1_000_000, converters: 499_000)
        )
        // scipy.integrate.quad, as above.
        expectClose(probability, 0.9213504051228054, tolerance: 1e-9, "a million users each")
    }

    @Test("Identical arms are a coin flip and swapping the arms complements the probability")
    func symmetry() throws {
        let arm = ArmCounts(users: 2000, converters: 130)
        expectClose(ChanceToBeatControl.probability(variant: arm, control: arm), 0.5, tolerance: 1e-12, "identical")
        for (variant, control) in armPairs {
            let forward = try #require(ChanceToBeatControl.probability(variant: variant, control: control))
            let backward = try #require(ChanceToBeatControl.probability(variant: control, control: variant))
            #expect(abs(forward + backward - 1) < 1e-12, "\(variant) against \(control)")
        }
    }

    @Test("An arm without users has no chance to beat control")
    func emptyArm() {
        #expect(ChanceToBeatControl.probability(variant: ArmCounts(users: 0, converters: 0),
                                                control: ArmCounts(users: 10, converters: 1)) == nil)
        #expect(ChanceToBeatControl.probability(variant: ArmCounts(users: 10, converters: 1),
                                                control: ArmCounts(users: 0, converters: 0)) == nil)
    }
}
