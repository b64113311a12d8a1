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

    private func conversion(
        _ ordinal: Int, _ name: String, _ variant: String?, control: Bool = false, users: Int, converters: Int
    ) -> ControlArmConversionRow {
        ControlArmConversionRow(app: "shop", campaignID: "c1", ordinal: ordinal, conversionEvent: name,
                                variantID: variant, control: control, users: users, converters: converters)
    }

    @Test("Further conversion events get the primary's arms with their own converters, and Holm over all of them")
    func furtherConversionEvents() throws {
        // Primary and signup: reference case 0 (control 500/10000, v1 560/10000, v2 505/9800). Share: 500, 500
        // and 490 converters, every rate 0.05, so z = 0 and p = 1 for both variants.
        let campaigns = ControlReport.build(
            rows: [arm("c1", nil, control: true, users: 10_000, converters: 500),
                   arm("c1", "v1", users: 10_000, converters: 560), arm("c1", "v2", users: 9_800, converters: 505)],
            splits: [:],
            conversions: [
                conversion(2, "signup", nil, control: true, users: 10_000, converters: 500),
                conversion(2, "signup", "v1", users: 10_000, converters: 560),
                conversion(2, "signup", "v2", users: 9_800, converters: 505),
                conversion(3, "share", nil, control: true, users: 10_000, converters: 500),
                conversion(3, "share", "v1", users: 10_000, converters: 500),
                conversion(3, "share", "v2", users: 9_800, converters: 490),
            ],
            asOf: Self.asOf
        )
        let campaign = try #require(campaigns.first)
        #expect(campaign.furtherConversions.map(\.ordinal) == [2, 3])
        #expect(campaign.furtherConversions.map(\.conversionEvent) == ["signup", "share"])
        let signup = campaign.furtherConversions[0]
        let share = campaign.furtherConversions[1]
        #expect(share.arms.map(\.splitName) == ["control", "v1", "v2"])
        #expect(share.arms.map(\.converters) == [500, 500, 490])
        #expect(share.arms.map(\.exposedUsers) == [10_000, 10_000, 9_800])
        // The primary keeps its family of two variants: the reference's Holm values.
        let reference = try ReferenceFixture.load().cases[0]
        expectClose(campaign.comparisons[0].statistics.pValueHolm, reference.variants[0].pValueHolm, "primary v1")
        expectClose(campaign.comparisons[1].statistics.pValueHolm, reference.variants[1].pValueHolm, "primary v2")
        // The further events are one family of four: p = 0.058258, 0.623726, 1, 1. The smallest × 4 = 0.233031;
        // 0.623726 × 3 is capped at 1, and so is everything after it.
        expectClose(signup.comparisons[0].statistics.pValue, reference.variants[0].pValuePooledZ, "signup v1 raw")
        expectClose(signup.comparisons[0].statistics.pValueHolm, 4 * 0.05825780603351623, "signup v1")
        expectClose(signup.comparisons[1].statistics.pValueHolm, 1, "signup v2")
        for comparison in share.comparisons {
            expectClose(comparison.statistics.z, 0, "share z")
            expectClose(comparison.statistics.pValueHolm, 1, "share Holm")
        }
        #expect(share.comparisons.map(\.variantID) == ["v1", "v2"])
    }
}
