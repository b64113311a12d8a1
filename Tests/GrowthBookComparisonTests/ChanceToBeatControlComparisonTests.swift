import CardinalReports
import Testing

/// The chance to beat control against gbstats' Bayesian test (improper flat prior on the relative effect).
/// They differ by design: Cardinal integrates exact Beta posteriors of the two rates, gbstats takes a normal
/// posterior of the relative lift from the delta method; with the arms of ``ComparisonCases`` the two stay
/// within 0.01 of each other.
@Suite struct ChanceToBeatControlComparisonTests {
    @Test("The exact Beta chance to beat control is within 0.01 of gbstats' chance to win")
    func chanceToWin() throws {
        let results = try GrowthBookEngine.proportions()
        for (arms, gbstats) in zip(ComparisonCases.proportions, results) {
            let cardinal = ControlStatistics.compare(variant: arms.variant, control: arms.control)
            expectClose(cardinal.chanceToBeatControl, gbstats.relative.chanceToWin, tolerance: 0.01, "\(arms)")
        }
    }
}
