import CardinalReports
import CardinalStore
import Foundation
import Testing

@Suite struct ControlReportBuildTests {
    private static let asOf = Date(timeIntervalSince1970: 1_800_000_000)

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
        // Equal weights: 1000/1000/1000 fits exactly.
        #expect(c1.sampleRatio.check?.chi2 == 0)
        // c2 has one arm and no control: no check, not a control experiment, yet built for the SRM findings.
        #expect(campaigns[1].sampleRatioSkipped != nil)
        #expect(campaigns[1].isControlExperiment)
    }

    @Test("Without a conversion event there are no comparisons, and a campaign without control is not shown")
    func noConversion() {
        let campaigns = ControlReport.build(
            rows: [arm("c1", "v1", users: 40, converters: nil), arm("c1", "v2", users: 40, converters: nil)],
            splits: [:], asOf: Self.asOf
        )
        #expect(campaigns.first?.comparisons == [])
        #expect(campaigns.first?.arms.map(\.rate) == [nil, nil])
        #expect(campaigns.first?.isControlExperiment == false)
        let report = ControlReport(
            scope: ReportScope(from: ReportDate(daysSinceEpoch: 0), to: ReportDate(daysSinceEpoch: 0)),
            asOf: Self.asOf, allCampaigns: campaigns
        )
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
        let report = ControlReport(
            scope: ReportScope(from: ReportDate(daysSinceEpoch: 0), to: ReportDate(daysSinceEpoch: 0)),
            asOf: Self.asOf, allCampaigns: campaigns
        )
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
}
