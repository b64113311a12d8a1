import CardinalStore
import Foundation

extension ControlReport {
    /// The split a campaign's arm sizes are tested against: the configured one; else the users per arm of
    /// the campaign's sends, when every arm the campaign shows was sent to (assignment data, which control
    /// impressions lost by a custom UI do not touch); else none. Equal arms are never assumed: that made an
    /// ordinary 90/10 control split a critical mismatch (issue 12).
    /// - Parameters:
    ///   - arms: The arms the campaign shows (its exposures).
    ///   - configured: The campaign's `--split` setting.
    ///   - sends: The campaign's rows of `cardinal.send_arms`.
    static func expectedSplit(
        arms: [ControlArm], configured: ExpectedSplit?, sends: [SendArmRow]
    ) -> (ExpectedSplit?, ExpectedSplitSource) {
        if let configured {
            return (configured, .configured)
        }
        let sent = sends.filter { $0.users > 0 }.map { row in
            ExpectedSplit.Arm(
                name: row.control ? ExpectedSplit.controlArm : row.variantID ?? ControlArm.defaultVariantName,
                weight: Double(row.users)
            )
        }
        let everyArmSent = arms.allSatisfy { arm in sent.contains { $0.name == arm.splitName } }
        guard !sent.isEmpty, everyArmSent, let learned = try? ExpectedSplit(arms: sent) else {
            return (nil, .unknown)
        }
        return (learned, .learnedFromSends)
    }

    /// The sample ratio check over the observed arms and any arm the split names that had no users. An
    /// observed arm the split does not name weighs 0, which skips the check, because no expected count can
    /// be given for it; without a split the check is skipped as unknown.
    static func sampleRatio(
        arms: [ControlArm], split: ExpectedSplit?
    ) -> ([ControlCampaign.SplitArm], SampleRatioOutcome, String?) {
        var splitArms = arms.map { ControlCampaign.SplitArm(name: $0.splitName, users: $0.users, weight: 0) }
        guard let split else {
            return (splitArms, .skipped(.expectedSplitUnknown), SampleRatioSkipReason.expectedSplitUnknown.description)
        }
        for arm in split.arms where !splitArms.contains(where: { $0.name == arm.name }) {
            splitArms.append(ControlCampaign.SplitArm(name: arm.name, users: 0, weight: arm.weight))
        }
        for index in splitArms.indices {
            splitArms[index].weight = split.weight(of: splitArms[index].name) ?? 0
        }
        let outcome = SampleRatioCheck.evaluate(observed: splitArms.map(\.users), expectedWeights: splitArms.map(\.weight))
        guard case .skipped(let reason) = outcome else {
            return (splitArms, outcome, nil)
        }
        if let unnamed = splitArms.first(where: { split.weight(of: $0.name) == nil }) {
            return (splitArms, outcome, "arm \"\(unnamed.name)\" has users but is not in the expected split \(split)")
        }
        if case .expectedCountTooSmall(let index, let expected) = reason {
            let text = "arm \"\(splitArms[index].name)\" expects \(String(format: "%.1f", expected)) users, fewer "
                + "than the \(Int(SampleRatioCheck.minimumExpectedCount)) a chi-square test needs"
            return (splitArms, outcome, text)
        }
        return (splitArms, outcome, reason.description)
    }
}
