import CardinalReports
import Testing

/// The fixed-horizon numbers against gbstats' `TwoSidedTTest`. The point estimates are the same definitions;
/// the intervals and p-values differ by design (docs/experiment-statistics.md): Cardinal uses Newcombe's score
/// interval, Katz's log risk-ratio interval and the pooled z-test, gbstats Wald-type intervals with a
/// Student t quantile and the unpooled variance. On the arms of ``ComparisonCases`` (1,500 users and more) they
/// agree to the tolerances below, which are what those design differences amount to there.
@Suite struct FixedHorizonComparisonTests {
    @Test("The difference and the relative lift are gbstats' absolute and relative estimates")
    func pointEstimates() throws {
        for (arms, cardinal, gbstats) in try GrowthBookEngine.proportions() {
            expectClose(cardinal.difference, gbstats.absolute.fixed.estimate, tolerance: 1e-12, "\(arms) difference")
            expectClose(cardinal.relativeLift, gbstats.relative.fixed.estimate, tolerance: 1e-12, "\(arms) lift")
        }
    }

    @Test("Newcombe's interval of the difference is within 0.0005 of gbstats' Welch interval")
    func differenceInterval() throws {
        for (arms, cardinal, gbstats) in try GrowthBookEngine.proportions() {
            expectClose(cardinal.differenceCI95, gbstats.absolute.fixed.ci, tolerance: 0.0005, "\(arms) difference")
        }
    }

    @Test("Katz's interval of the lift is within 8 % of its width of gbstats' delta-method interval")
    func relativeLiftInterval() throws {
        for (arms, cardinal, gbstats) in try GrowthBookEngine.proportions() {
            // Katz's interval is symmetric in log(1 + lift), gbstats' in the lift: the larger the lift and the
            // wider the interval, the more Katz's leans to the right, so the tolerance scales with the width.
            let width = gbstats.relative.fixed.ci[1] - gbstats.relative.fixed.ci[0]
            expectClose(cardinal.relativeLiftCI95, gbstats.relative.fixed.ci, tolerance: 0.08 * width, "\(arms) lift")
        }
    }

    @Test("The pooled z-test's p-value is within 0.005 of gbstats' Welch t-test's")
    func pValue() throws {
        for (arms, cardinal, gbstats) in try GrowthBookEngine.proportions() {
            expectClose(cardinal.pValue, gbstats.absolute.fixed.pValue, tolerance: 0.005, "\(arms) p")
        }
    }
}
