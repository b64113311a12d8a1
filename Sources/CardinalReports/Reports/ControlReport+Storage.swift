public import CardinalStore

extension ControlReport {
    /// The report as rows of `cardinal.report_control`: one per arm of each campaign the report shows.
    public var records: [ControlReportRecord] {
        campaigns.flatMap { campaign in
            campaign.arms.map { arm in
                var record = ControlReportRecord(
                    arm: ControlArmRow(
                        app: campaign.app, campaignID: campaign.campaignID, conversionEvent: campaign.conversionEvent,
                        window: campaign.window, variantID: arm.variantID, control: arm.control, users: arm.users,
                        converters: arm.converters, exposedUsers: arm.exposedUsers,
                        usersInSeveralArms: campaign.usersInSeveralArms
                    ),
                    asOf: campaign.asOf
                )
                record.rate = arm.rate
                let comparison = arm.control ? nil : campaign.comparisons.first { $0.variantID == arm.variantID }
                if let statistics = comparison?.statistics {
                    record.difference = statistics.difference
                    record.differenceLower = statistics.differenceCI95?.lower
                    record.differenceUpper = statistics.differenceCI95?.upper
                    record.relativeLift = statistics.relativeLift
                    record.relativeLiftLower = statistics.relativeLiftCI95?.lower
                    record.relativeLiftUpper = statistics.relativeLiftCI95?.upper
                    record.z = statistics.z
                    record.pValue = statistics.pValue
                    record.pValueHolm = statistics.pValueHolm
                    record.confidence = statistics.confidence
                    record.chanceToBeatControl = statistics.chanceToBeatControl
                    record.storeExperimentColumns(statistics, of: arm, in: campaign, report: self)
                }
                record.storeCUPEDColumns(comparison?.cuped, window: campaign.cupedWindow)
                (record.significance, record.significanceSource) = significance(of: campaign)
                if let check = campaign.sampleRatio.check {
                    record.srmChi2 = check.chi2
                    record.srmDegreesOfFreedom = check.degreesOfFreedom
                    record.srmPValue = check.pValue
                    record.srmMismatch = check.mismatch
                }
                record.srmSkipped = campaign.sampleRatioSkipped
                record.srmSplitSource = campaign.splitSource
                return record
            }
        }
    }

    /// A `sample_ratio_mismatch` finding for every campaign or canvas (control experiment or not) whose arm
    /// sizes do not fit the expected split, for the anomalies report; a canvas's names the canvas, no step. The evidence says where the split came from:
    /// `split_configured` is 1 for a configured split and 0 for one learned from the sends (evidence is
    /// numeric), whose users per arm are then `send_users.<arm>`.
    public var sampleRatioFindings: [AnomalyFinding] {
        allCampaigns.compactMap { campaign in
            guard let check = campaign.sampleRatio.check, check.mismatch else {
                return nil
            }
            let total = Double(campaign.splitArms.map(\.users).reduce(0, +))
            let weights = campaign.splitArms.map(\.weight).reduce(0, +)
            var items = [
                AnomalyEvidence.Item(name: "chi2", value: check.chi2),
                AnomalyEvidence.Item(name: "df", value: Double(check.degreesOfFreedom)),
                AnomalyEvidence.Item(name: "p_value", value: check.pValue),
            ]
            let learned = campaign.splitSource == .learnedFromSends
            items.append(AnomalyEvidence.Item(name: "split_configured", value: learned ? 0 : 1))
            for arm in campaign.splitArms {
                items.append(AnomalyEvidence.Item(name: "users.\(arm.name)", value: Double(arm.users)))
                items.append(AnomalyEvidence.Item(name: "expected_users.\(arm.name)", value: total * arm.weight / weights))
                if learned {
                    items.append(AnomalyEvidence.Item(name: "send_users.\(arm.name)", value: arm.weight))
                }
            }
            let cause = learned
                ? "Exposures do not follow the split the campaign's sends carry: control impressions lost by a "
                    + "custom UI, or exposures logged for another arm than the one sent."
                : "Arm sizes do not fit the configured split: control impressions lost by a custom UI, a broken "
                    + "assignment, or a split setting that does not match the campaign."
            return campaign.finding(.sampleRatioMismatch, severity: .critical, evidence: items, likelyCause: cause)
        }
    }
}
