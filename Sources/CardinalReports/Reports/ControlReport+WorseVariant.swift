public import CardinalStore

extension ControlReport {
    /// Every finding of the report, for `--fail-on` and the anomalies report: the sample ratio mismatches, then
    /// the variants worse than control.
    public var findings: [AnomalyFinding] {
        sampleRatioFindings + worseVariantFindings
    }

    /// A `variant_worse_than_control` warning for every variant whose primary conversion rate is significantly
    /// below control's under its campaign's significance rule (``significance(of:)``). Under the default,
    /// sequential, a nightly `report run --fail-on warning` can stop a harmful variant without the false alarms
    /// daily looks at a fixed-horizon p-value raise.
    ///
    /// The evidence is numeric, as every finding's: the rule's numbers (`always_valid` 1 for the always-valid
    /// interval and Holm p-value, 0 for Newcombe's and Katz's intervals and the pooled z-test's), the difference
    /// and the relative lift with their interval, and the users and converters of both arms, keyed
    /// `users.<arm>` as in the sample ratio findings. A finding names no arm, so the likely cause names the
    /// variant.
    public var worseVariantFindings: [AnomalyFinding] {
        campaigns.flatMap { campaign -> [AnomalyFinding] in
            let rule = significance(of: campaign).rule
            guard let control = campaign.controlArm else {
                return []
            }
            return campaign.comparisons.compactMap { comparison in
                let statistics = comparison.statistics
                guard rule.isSignificant(statistics) == true, let difference = statistics.difference, difference < 0,
                      let variant = campaign.arms.first(where: { !$0.control && $0.variantID == comparison.variantID })
                else {
                    return nil
                }
                return finding(variant: variant, control: control, statistics: statistics, rule: rule, of: campaign)
            }
        }
    }

    private func finding(
        variant: ControlArm, control: ControlArm, statistics: VariantComparison, rule: SignificanceRule,
        of campaign: ControlCampaign
    ) -> AnomalyFinding {
        let sequential = rule == .sequential
        let differenceInterval = sequential ? statistics.alwaysValid.differenceInterval : statistics.differenceCI95
        let liftInterval = sequential ? statistics.alwaysValid.relativeLiftInterval : statistics.relativeLiftCI95
        var items = [
            AnomalyEvidence.Item(name: "always_valid", value: sequential ? 1 : 0),
            AnomalyEvidence.Item(name: "difference", value: statistics.difference),
            AnomalyEvidence.Item(name: "difference_ci95_lower", value: differenceInterval?.lower),
            AnomalyEvidence.Item(name: "difference_ci95_upper", value: differenceInterval?.upper),
            AnomalyEvidence.Item(name: "relative_lift", value: statistics.relativeLift),
            AnomalyEvidence.Item(name: "relative_lift_ci95_lower", value: liftInterval?.lower),
            AnomalyEvidence.Item(name: "relative_lift_ci95_upper", value: liftInterval?.upper),
            AnomalyEvidence.Item(
                name: "p_value_holm", value: sequential ? statistics.alwaysValid.pValueHolm : statistics.pValueHolm
            ),
        ]
        for arm in [control, variant] {
            items.append(AnomalyEvidence.Item(name: "users.\(arm.splitName)", value: Double(arm.users)))
            items.append(AnomalyEvidence.Item(name: "converters.\(arm.splitName)", value: arm.converters.map(Double.init)))
        }
        let numbers = sequential ? "always-valid numbers" : "fixed-horizon numbers"
        let cause = "Variant \(variant.splitName) converts to \(campaign.conversionEvent ?? "the goal") less than "
            + "control by the campaign's \(numbers) (Holm p < 0.05): its message, offer or the flow it opens "
            + "hurts conversion; stop or fix it."
        return campaign.finding(.variantWorseThanControl, severity: .warning, evidence: items, likelyCause: cause)
    }
}
