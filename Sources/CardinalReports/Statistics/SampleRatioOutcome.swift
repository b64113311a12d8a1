/// The result of ``SampleRatioCheck/evaluate(observed:expectedWeights:)``: a check, or why none was made.
///
/// A skipped check is not a pass: the report shows it as `null` with the reason, so that a reader does not
/// mistake "too few users to tell" for "the split is fine".
public enum SampleRatioOutcome: Sendable, Equatable {
    /// The chi-square test ran.
    case checked(SampleRatioCheck)
    /// The test was not run, for the given reason.
    case skipped(SampleRatioSkipReason)

    /// The check, or `nil` when it was skipped.
    public var check: SampleRatioCheck? {
        guard case .checked(let check) = self else { return nil }
        return check
    }
}

/// Why a sample ratio mismatch check was not run.
public enum SampleRatioSkipReason: Sendable, Equatable, CustomStringConvertible {
    /// A split needs at least two arms.
    case fewerThanTwoArms(arms: Int)
    /// No split is configured and the campaign's sends do not name every arm it shows, so there is nothing
    /// to test against (equal arms would be a guess, and a false alarm on every unequal split).
    case expectedSplitUnknown
    /// The configured weights are negative, not finite, or sum to zero.
    case invalidWeights([Double])
    /// An arm's expected count is below ``SampleRatioCheck/minimumExpectedCount``, where the chi-square
    /// approximation is unreliable. `arm` is the index in the arrays passed in.
    case expectedCountTooSmall(arm: Int, expected: Double)

    /// A sentence for the report saying why the check was skipped.
    public var description: String {
        switch self {
        case .fewerThanTwoArms(let arms):
            "a sample ratio check needs at least 2 arms, found \(arms)"
        case .expectedSplitUnknown:
            "the expected split is unknown: none is configured (cardinal campaigns set --split) and the "
                + "campaign's sends do not name every arm it shows"
        case .invalidWeights(let weights):
            "the expected split \(weights) is not usable: weights must be finite, non-negative and not all zero"
        case .expectedCountTooSmall(let arm, let expected):
            "arm \(arm) expects \(expected) users, fewer than the \(Int(SampleRatioCheck.minimumExpectedCount)) "
                + "a chi-square test needs"
        }
    }
}
