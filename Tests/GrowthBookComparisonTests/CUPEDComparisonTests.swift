import CardinalReports
import Testing

/// CUPED against gbstats' regression-adjusted t-test (`RegressionAdjustedStatistic`, θ from both arms). θ and
/// the estimates are the same formulas; the intervals and p-values differ only by the quantile, normal here and
/// Student t with about 3,000 to 40,000 degrees of freedom there, a relative difference below 0.04 % of the
/// half-width.
@Suite struct CUPEDComparisonTests {
    @Test("θ and the adjusted difference and lift are gbstats' to 1e-12")
    func estimates() throws {
        for (arms, comparison, gbstats) in try GrowthBookEngine.cuped() {
            let cardinal = try #require(comparison, "\(arms)")
            expectClose(cardinal.theta, gbstats.absolute.theta, tolerance: 1e-12, "θ")
            expectClose(cardinal.difference, gbstats.absolute.fixed.estimate, tolerance: 1e-12, "difference")
            expectClose(cardinal.relativeLift, gbstats.relative.fixed.estimate, tolerance: 1e-12, "lift")
        }
    }

    @Test("The adjusted intervals and p-value are gbstats' up to the t quantile")
    func intervalsAndPValue() throws {
        for (arms, comparison, gbstats) in try GrowthBookEngine.cuped() {
            let cardinal = try #require(comparison, "\(arms)")
            expectClose(cardinal.differenceCI95, gbstats.absolute.fixed.ci, tolerance: 2e-5, "difference")
            expectClose(cardinal.relativeLiftCI95, gbstats.relative.fixed.ci, tolerance: 1e-4, "lift")
            expectClose(cardinal.pValue, gbstats.absolute.fixed.pValue, tolerance: 1e-4, "p")
        }
    }

    @Test("The variance removed is substantial when the covariate predicts the metric")
    func varianceReduction() throws {
        for (arms, comparison, gbstats) in try GrowthBookEngine.cuped() {
            let cardinal = try #require(comparison, "\(arms)")
            // gbstats' standard error is that of the adjusted estimator; the unadjusted one is Cardinal's own
            // standard error of y alone, so the reduction is checked through the adjusted variance.
            let adjustedStandardError = try #require(cardinal.differenceCI95).upper - cardinal.difference
            expectClose(adjustedStandardError / ControlStatistics.z95, gbstats.absolute.fixed.stddev,
                        tolerance: 1e-12, "adjusted standard error")
            // With equal arms the share of variance removed is about the squared correlation of x and y.
            let pooled = arms.variant + arms.control
            let n = Double(pooled.users)
            let covariance = pooled.sumXY - pooled.sumX * pooled.sumY / n
            let correlationSquared = covariance * covariance
                / ((pooled.sumXSquares - pooled.sumX * pooled.sumX / n) * (pooled.sumYSquares - pooled.sumY * pooled.sumY / n))
            #expect(correlationSquared > 0.05)
            expectClose(cardinal.varianceReduction, correlationSquared, tolerance: 0.01, "variance reduction")
        }
    }
}
