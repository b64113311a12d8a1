import CardinalReports
import Testing

/// The chance to beat control against gbstats' Bayesian test (improper flat prior on the relative effect).
/// They differ by design: Cardinal integrates exact Beta posteriors of the two rates, gbstats takes a normal
/// posterior of the relative lift from the delta method; with the arms of ``ComparisonCases`` the two stay
/// within 0.01 of each other.
@Suite struct ChanceToBeatControlComparisonTests {
    @Test("The exact Beta chance to beat control is within 0.01 of gbstats' chance to win")
    func chanceToWin() throws {
        for (arms, cardinal, gbstats) in try GrowthBookEngine.proportions() {
            expectClose(cardinal.chanceToBeatControl, gbstats.relative.chanceToWin, tolerance: 0.01, "\(arms)")
        }
    }
}
