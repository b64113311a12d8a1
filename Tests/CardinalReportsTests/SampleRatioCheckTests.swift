import CardinalReports
import Testing

@Suite struct SampleRatioCheckTests {
    @Test("A split that matches the weights exactly has a chi-square of 0 and no mismatch")
    func perfectSplit() throws {
        let check = try #require(SampleRatioCheck.evaluate(observed: [500, 500, 1000], expectedWeights: [1, 1, 2]).check)
        #expect(check.chi2 == 0)
        #expect(check.degreesOfFreedom == 2)
        #expect(check.pValue == 1)
        #expect(!check.mismatch)
    }

    @Test("5000 against 5400 users on a 50/50 split is a mismatch (scipy: p = 8.77e−5)")
    func clearMismatch() throws {
        let check = try #require(SampleRatioCheck.evaluate(observed: [5000, 5400], expectedWeights: [0.5, 0.5]).check)
        expectClose(check.chi2, 15.384615384615385, tolerance: 1e-12, "chi-square")
        expectRelativelyClose(check.pValue, 8.769942375590228e-05, relative: 1e-10, "p-value")
        #expect(check.mismatch)
    }

    @Test("A p-value just above 0.001 is not a mismatch")
    func thresholdIsStrict() throws {
        // chi² = 2·150²/5150 = 8.74, p ≈ 0.0031.
        let check = try #require(SampleRatioCheck.evaluate(observed: [5000, 5300], expectedWeights: [1, 1]).check)
        #expect(check.pValue > SampleRatioCheck.mismatchThreshold)
        #expect(!check.mismatch)
    }

    @Test("Weights are normalized, so shares and percentages give the same result")
    func weightsAreNormalized() throws {
        let shares = try #require(
            SampleRatioCheck.evaluate(observed: [640, 330], expectedWeights: [2.0 / 3, 1.0 / 3]).check
        )
        let parts = try #require(SampleRatioCheck.evaluate(observed: [640, 330], expectedWeights: [2, 1]).check)
        // 970 users split 2:1 expect 646.67 and 323.33.
        expectClose(shares.chi2, 0.20618556701030927, tolerance: 1e-12, "chi-square from shares")
        expectClose(parts.chi2, shares.chi2, tolerance: 1e-12, "chi-square from parts")
    }

    @Test("The check is skipped when an expected count is below 8")
    func skippedForSmallExpectedCounts() {
        // 13 users on a 50/50 split expect 6.5 each.
        let outcome = SampleRatioCheck.evaluate(observed: [10, 3], expectedWeights: [0.5, 0.5])
        #expect(outcome == .skipped(.expectedCountTooSmall(arm: 0, expected: 6.5)))
        #expect(outcome.check == nil)
    }

    @Test("An expected count of exactly 8 is enough to run the check")
    func eightIsEnough() {
        #expect(SampleRatioCheck.evaluate(observed: [8, 8], expectedWeights: [1, 1]).check != nil)
    }

    @Test("An arm with weight 0 expects nobody, so the check is skipped rather than dividing by zero")
    func zeroWeightArmIsSkipped() {
        let outcome = SampleRatioCheck.evaluate(observed: [1000, 1000, 3], expectedWeights: [0.5, 0.5, 0])
        #expect(outcome == .skipped(.expectedCountTooSmall(arm: 2, expected: 0)))
    }

    @Test("Arms with no users at all skip the check")
    func noUsersIsSkipped() {
        #expect(SampleRatioCheck.evaluate(observed: [0, 0], expectedWeights: [1, 1]).check == nil)
    }

    @Test("The check is skipped with fewer than two arms")
    func skippedForOneArm() {
        #expect(SampleRatioCheck.evaluate(observed: [1000], expectedWeights: [1]) == .skipped(.fewerThanTwoArms(arms: 1)))
        #expect(SampleRatioCheck.evaluate(observed: [], expectedWeights: []) == .skipped(.fewerThanTwoArms(arms: 0)))
    }

    @Test("Negative, infinite or all-zero weights skip the check as unusable")
    func unusableWeights() {
        for weights: [Double] in [[-1, 2], [.infinity, 1], [0, 0], [.nan, 1]] {
            let outcome = SampleRatioCheck.evaluate(observed: [100, 100], expectedWeights: weights)
            guard case .skipped(.invalidWeights) = outcome else {
                Issue.record("weights \(weights) gave \(outcome)")
                continue
            }
        }
    }

    @Test("A skip reason explains itself in a sentence that names the limit")
    func skipReasonsReadAsSentences() {
        let reason = SampleRatioSkipReason.expectedCountTooSmall(arm: 1, expected: 6.5)
        #expect(reason.description == "arm 1 expects 6.5 users, fewer than the 8 a chi-square test needs")
        #expect(SampleRatioSkipReason.fewerThanTwoArms(arms: 1).description.contains("at least 2 arms"))
    }
}
