/// Where the expected split of a campaign's sample ratio check comes from (issue 12): configured, learned
/// from assignment data, or unknown, never guessed. Stored in `report_control.srm_split_source`.
public enum ExpectedSplitSource: String, Sendable, CaseIterable {
    /// The campaign's setting, `cardinal campaigns set --split`.
    case configured
    /// The users per arm of the campaign's sends (variant sends and `control: true` sends), when every arm
    /// the campaign shows was sent to.
    case learnedFromSends = "learned_from_sends"
    /// Neither: the check is skipped rather than run against equal arms, which raised false alarms on every
    /// ordinary 90/10 control split.
    case unknown
}
