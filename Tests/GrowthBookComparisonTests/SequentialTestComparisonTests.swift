import CardinalReports
import Testing

/// The always-valid numbers against gbstats' `SequentialTwoSidedTTest` with the same tuning (5000): the same
/// formulas on the same unpooled variances, so they agree to rounding.
@Suite struct SequentialTestComparisonTests {
    /// Both compute the same closed forms in double precision; what is left is the order of operations.
    static let tolerance = 1e-9

    @Test("The always-valid interval of the difference is gbstats' sequential interval")
    func differenceInterval() throws {
        for (arms, comparison, gbstats) in try GrowthBookEngine.proportions() {
            let cardinal = comparison.alwaysValid
            expectClose(cardinal.differenceInterval, gbstats.absolute.sequential.ci, tolerance: Self.tolerance,
                        "\(arms) difference")
        }
    }

    @Test("The always-valid interval of the relative lift is gbstats' sequential relative interval")
    func relativeLiftInterval() throws {
        for (arms, comparison, gbstats) in try GrowthBookEngine.proportions() {
            let cardinal = comparison.alwaysValid
            expectClose(cardinal.relativeLiftInterval, gbstats.relative.sequential.ci, tolerance: Self.tolerance,
                        "\(arms) lift")
        }
    }

    @Test("The always-valid p-value is gbstats' sequential p-value of the absolute difference")
    func pValue() throws {
        var belowOne = 0
        for (arms, comparison, gbstats) in try GrowthBookEngine.proportions() {
            let cardinal = comparison.alwaysValid
            expectClose(cardinal.pValue, gbstats.absolute.sequential.pValue, tolerance: Self.tolerance, "\(arms) p")
            if let p = cardinal.pValue, p < 1 { belowOne += 1 }
        }
        // A p-value capped at 1 everywhere would compare nothing.
        #expect(belowOne >= 3)
    }
}
