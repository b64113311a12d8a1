public import CardinalStore

extension CumulativeLift {
    /// The series of every campaign of `report` that has a control arm and a conversion event, read with one
    /// `cardinal.control_arm_days` query per campaign over the report's range, test events and as-of time.
    /// - Parameters:
    ///   - report: The control report whose campaigns are drawn (a stored run's, or `report control`'s).
    ///   - session: Where the report state is read.
    /// - Throws: `PostgresError`.
    public static func ofCampaigns(
        in report: ControlReport, session: ReportSession
    ) throws -> [ControlReport.CampaignKey: CumulativeLift] {
        var series: [ControlReport.CampaignKey: CumulativeLift] = [:]
        for campaign in report.campaigns
        where !campaign.isCanvas && campaign.conversionEvent != nil && campaign.controlArm != nil {
            let rows = try session.controlArmDays(app: campaign.app, campaign: campaign.campaignID, report.scope,
                                                  asOf: report.asOf)
            series[ControlReport.CampaignKey(app: campaign.app, campaignID: campaign.campaignID)] =
                CumulativeLift(rows: rows, from: report.scope.from)
        }
        return series
    }
}
