import CardinalReports
import Testing

/// CUPED on twelve users worked by hand (docs/experiment-statistics.md). Control (x, y): (0,0) (1,1) (2,1)
/// (1,0) (3,1) (0,0); variant: (0,1) (2,1) (1,1) (1,0) (3,1) (0,0). Over all twelve, Cov(x, y) = 23/66 and
/// Var(x) = 41/33, so θ = 23/82 = 0.2804878.
@Suite struct CUPEDEstimatorTests {
    private let control = CovariateSums(users: 6, sumY: 3, sumYSquares: 3, sumX: 7, sumXSquares: 15, sumXY: 6)
    private let variant = CovariateSums(users: 6, sumY: 4, sumYSquares: 4, sumX: 7, sumXSquares: 15, sumXY: 6)

    @Test("θ is Cov(x, y)/Var(x) over both arms, 23/82")
    func theta() throws {
        let result = try #require(CUPEDEstimator.compare(variant: variant, control: control))
        expectClose(result.theta, 23.0 / 82, tolerance: 1e-15, "θ")
    }

    @Test("Equal covariate means leave the difference at 4/6 − 3/6 and the lift at 1/3")
    func estimates() throws {
        let result = try #require(CUPEDEstimator.compare(variant: variant, control: control))
        expectClose(result.difference, 1.0 / 6, tolerance: 1e-15, "difference")
        expectClose(result.relativeLift, 1.0 / 3, tolerance: 1e-15, "lift")
    }

    @Test("The adjusted variance 0.0586043 gives the interval, the p-value and a 37.9 % variance reduction")
    func intervalAndReduction() throws {
        // Per arm Var(y) + θ²Var(x) − 2θCov(x, y): control 0.3 + θ²·1.3667 − 2θ·0.4 = 0.1832838, variant
        // 0.2666667 + θ²·1.3667 − 2θ·0.2 = 0.1683789; V = (0.1832838 + 0.1683789)/6 = 0.0586043 against
        // (0.3 + 0.2666667)/6 = 0.0944444 unadjusted.
        let result = try #require(CUPEDEstimator.compare(variant: variant, control: control))
        expectClose(result.differenceCI95, [-0.3078079308, 0.6411412641], tolerance: 1e-9, "difference interval")
        expectClose(result.relativeLiftCI95, [-0.7406948450, 1.4073615117], tolerance: 1e-9, "lift interval")
        expectClose(result.pValue, 0.4911579996, tolerance: 1e-9, "p")
        expectClose(result.varianceReduction, 0.3794835007, tolerance: 1e-9, "variance reduction")
    }

    @Test("A covariate that does not vary changes nothing: θ is 0 and the reduction 0")
    func constantCovariate() throws {
        let flatControl = CovariateSums(users: 6, sumY: 3, sumYSquares: 3, sumX: 6, sumXSquares: 6, sumXY: 3)
        let flatVariant = CovariateSums(users: 6, sumY: 4, sumYSquares: 4, sumX: 6, sumXSquares: 6, sumXY: 4)
        let result = try #require(CUPEDEstimator.compare(variant: flatVariant, control: flatControl))
        #expect(result.theta == 0)
        expectClose(result.varianceReduction, 0, tolerance: 1e-15, "variance reduction")
    }

    @Test("An arm of one user has no variance, so no comparison")
    func tooFewUsers() {
        let single = CovariateSums(users: 1, sumY: 1, sumYSquares: 1, sumX: 2, sumXSquares: 4, sumXY: 2)
        #expect(CUPEDEstimator.compare(variant: single, control: control) == nil)
    }
}
