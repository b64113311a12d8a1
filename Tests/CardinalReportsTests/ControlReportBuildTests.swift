import CardinalReports
import CardinalStore
import Foundation
import Testing

@Suite struct ControlReportBuildTests {
    private static let asOf = Date(timeIntervalSince1970: 1_800_000_000)

    private func report(of campaigns: [ControlCampaign]) -> ControlReport {
        ControlReport(
            scope: ReportScope(from: ReportDate(daysSinceEpoch: 0), to: ReportDate(daysSinceEpoch: 0)),
            asOf: Self.asOf, allCampaigns: campaigns
        )
    }

    private func key(_ campaign: String) -> ControlReport.CampaignKey {
        ControlReport.CampaignKey(app: "shop", campaignID: campaign)
    }

    private func sent(_ campaign: String, _ variant: String?, control: Bool = false, users: Int) -> SendArmRow {
        SendArmRow(app: "shop", campaignID: campaign, variantID: variant, control: control, users: users)
    }

    private func arm(
        _ campaign: String, _ variant: String?, control: Bool = false, users: Int, converters: Int? = 0
    ) -> ControlArmRow {
        ControlArmRow(
            app: "shop", campaignID: campaign, conversionEvent: converters == nil ? nil : "purchase",
            window: .standard, variantID: variant, control: control, users: users, converters: converters,
            exposedUsers: users, usersInSeveralArms: 0
        )
    }

    @Test("Rows group by campaign with control first, and variants are compared with control and adjusted by Holm")
    func groupsAndCompares() throws {
        let campaigns = ControlReport.build(
            rows: [arm("c1", "v2", users: 1000, converters: 130), arm("c1", nil, control: true, users: 1000, converters: 100),
                   arm("c1", "v1", users: 1000, converters: 120), arm("c2", "v1", users: 50)],
            splits: [:], asOf: Self.asOf
        )
        #expect(campaigns.map(\.campaignID) == ["c1", "c2"])
        let c1 = campaigns[0]
        #expect(c1.arms.map(\.splitName) == ["control", "v1", "v2"])
        let expected = ControlStatistics.compareAll(
            variants: [ArmCounts(users: 1000, converters: 120), ArmCounts(users: 1000, converters: 130)],
            control: ArmCounts(users: 1000, converters: 100)
        )
        #expect(c1.comparisons.map(\.statistics) == expected)
        // No split configured and no sends: the expected split is unknown, so 1000/1000/1000 is not checked.
        #expect(c1.sampleRatio == .skipped(.expectedSplitUnknown))
        #expect(c1.splitSource == .unknown)
        // c2 has one arm and no control: no check, not a control experiment, yet built for the SRM findings.
        #expect(campaigns[1].sampleRatioSkipped != nil)
        #expect(campaigns[1].isControlExperiment)
    }

    @Test("Without a conversion event there are no comparisons, and a campaign without control is not shown")
    func noConversion() throws {
        let campaigns = ControlReport.build(
            rows: [arm("c1", "v1", users: 40, converters: nil), arm("c1", "v2", users: 40, converters: nil)],
            splits: [key("c1"): try ExpectedSplit(parsing: "v1=1,v2=1")], asOf: Self.asOf
        )
        #expect(campaigns.first?.comparisons == [])
        #expect(campaigns.first?.arms.map(\.rate) == [nil, nil])
        #expect(campaigns.first?.isControlExperiment == false)
        let report = report(of: campaigns)
        #expect(report.campaigns.isEmpty)
        // Yet 40 against 40 was checked for the anomalies report.
        #expect(report.allCampaigns.first?.sampleRatio.check?.mismatch == false)
    }

    @Test("An arm of the split without users counts as 0 users, which is what a lost control arm looks like")
    func splitArmWithoutUsers() throws {
        let split = try ExpectedSplit(parsing: "control=1,v1=1")
        let campaigns = ControlReport.build(
            rows: [arm("c1", "v1", users: 50)],
            splits: [ControlReport.CampaignKey(app: "shop", campaignID: "c1"): split], asOf: Self.asOf
        )
        let campaign = try #require(campaigns.first)
        #expect(campaign.splitArms.map(\.name) == ["v1", "control"])
        #expect(campaign.splitArms.map(\.users) == [50, 0])
        // 50 against 0 where 25 and 25 were expected: chi² = 50.
        #expect(campaign.sampleRatio.check?.chi2 == 50)
        #expect(campaign.sampleRatio.check?.mismatch == true)
        #expect(campaign.isControlExperiment)
        let report = report(of: campaigns)
        let finding = try #require(report.sampleRatioFindings.first)
        #expect(finding.kind == .sampleRatioMismatch)
        #expect(finding.evidence["users.control"] == 0)
        #expect(finding.evidence["expected_users.control"] == 25)
    }

    @Test("An observed arm the split does not name skips the check with a reason naming the arm")
    func armMissingFromSplit() throws {
        let split = try ExpectedSplit(parsing: "control=1,v1=1")
        let campaigns = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 50), arm("c1", "v1", users: 50), arm("c1", "v9", users: 50)],
            splits: [ControlReport.CampaignKey(app: "shop", campaignID: "c1"): split], asOf: Self.asOf
        )
        let campaign = try #require(campaigns.first)
        #expect(campaign.sampleRatio.check == nil)
        #expect(campaign.sampleRatioSkipped?.contains("\"v9\"") == true)
    }

    @Test("A 90/10 control split with no configured split and no sends is not checked, so it raises no finding")
    func unknownSplitIsSkipped() throws {
        let campaigns = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 100), arm("c1", "v1", users: 900)], splits: [:],
            asOf: Self.asOf
        )
        let campaign = try #require(campaigns.first)
        // Against equal arms this was chi² = 2 × 400²/500 = 640: a false critical alarm.
        #expect(campaign.sampleRatio == .skipped(.expectedSplitUnknown))
        #expect(campaign.splitSource == .unknown)
        #expect(campaign.expectedSplit == nil)
        #expect(campaign.sampleRatioSkipped?.contains("expected split is unknown") == true)
        let report = report(of: campaigns)
        #expect(report.sampleRatioFindings.isEmpty)
        #expect(report.records.map(\.srmSplitSource) == [.unknown, .unknown])
        #expect(report.records.allSatisfy { $0.srmChi2 == nil && $0.srmSkipped != nil })
    }

    @Test("A 50/50 configured split missing a third of its control users is a mismatch that says it was configured")
    func configuredSplitMissingControl() throws {
        let campaigns = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 200), arm("c1", "v1", users: 300)],
            splits: [key("c1"): try ExpectedSplit(parsing: "control=1,v1=1")],
            sends: [key("c1"): [sent("c1", nil, control: true, users: 900), sent("c1", "v1", users: 100)]],
            asOf: Self.asOf
        )
        let campaign = try #require(campaigns.first)
        // The configured split wins over the sends. Expected 250 and 250: chi² = 50²/250 + 50²/250 = 20.
        #expect(campaign.splitSource == .configured)
        let check = try #require(campaign.sampleRatio.check)
        #expect(abs(check.chi2 - 20) < 1e-9)
        #expect(check.mismatch)
        let report = report(of: campaigns)
        let finding = try #require(report.sampleRatioFindings.first)
        #expect(finding.evidence["split_configured"] == 1)
        #expect(finding.evidence["expected_users.control"] == 250)
        #expect(finding.evidence["send_users.control"] == nil)
        #expect(finding.likelyCause.contains("configured split"))
    }

    @Test("Sends that carry 90/10 teach the split: 90/10 exposures fit it, 50/50 exposures are a mismatch")
    func splitLearnedFromSends() throws {
        let sends = [key("c1"): [sent("c1", nil, control: true, users: 100), sent("c1", "v1", users: 900)]]
        let fitting = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 100), arm("c1", "v1", users: 900)], splits: [:],
            sends: sends, asOf: Self.asOf
        )
        #expect(fitting.first?.splitSource == .learnedFromSends)
        #expect(fitting.first?.expectedSplit?.description == "control=100,v1=900")
        #expect(fitting.first?.sampleRatio.check?.chi2 == 0)
        let halved = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 100), arm("c1", "v1", users: 100)], splits: [:],
            sends: sends, asOf: Self.asOf
        )
        let campaign = try #require(halved.first)
        // Expected 20 control and 180 v1 of 200: chi² = 80²/20 + 80²/180 = 320 + 35.56 = 355.56.
        let check = try #require(campaign.sampleRatio.check)
        #expect(abs(check.chi2 - (320 + 6400.0 / 180)) < 1e-9)
        #expect(check.mismatch)
        let report = report(of: halved)
        let finding = try #require(report.sampleRatioFindings.first)
        #expect(finding.evidence["split_configured"] == 0)
        #expect(finding.evidence["send_users.control"] == 100)
        #expect(finding.evidence["send_users.v1"] == 900)
        #expect(finding.evidence["expected_users.control"] == 20)
        #expect(finding.likelyCause.contains("sends"))
    }

    @Test("Sends that miss an arm the campaign shows teach nothing: the split stays unknown")
    func sendsMissingAnArm() throws {
        let campaigns = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 100), arm("c1", "v1", users: 900), arm("c1", "v2", users: 900)],
            splits: [:],
            sends: [key("c1"): [sent("c1", nil, control: true, users: 100), sent("c1", "v1", users: 900)]],
            asOf: Self.asOf
        )
        #expect(campaigns.first?.splitSource == .unknown)
        #expect(campaigns.first?.sampleRatio == .skipped(.expectedSplitUnknown))
    }

    @Test("A control arm that was sent to but never shown counts as 0 users against the learned split")
    func sentArmNeverShown() throws {
        let campaigns = ControlReport.build(
            rows: [arm("c1", "v1", users: 900)], splits: [:],
            sends: [key("c1"): [sent("c1", nil, control: true, users: 100), sent("c1", "v1", users: 900)]],
            asOf: Self.asOf
        )
        let campaign = try #require(campaigns.first)
        #expect(campaign.splitArms.map(\.name) == ["v1", "control"])
        // Expected 810 and 90 of 900: chi² = 90²/810 + 90²/90 = 10 + 90 = 100.
        let check = try #require(campaign.sampleRatio.check)
        #expect(abs(check.chi2 - 100) < 1e-9)
        #expect(campaign.isControlExperiment)
    }
}
