public import CardinalStore

extension CumulativeLift {
    /// The series of every campaign of `run` that has a control arm and a conversion event, read with one
    /// `cardinal.control_arm_days` query per campaign over the run's range, test events and as-of time.
    /// - Parameters:
    ///   - run: The stored run whose pages are drawn.
    ///   - session: Where the report state is read.
    /// - Throws: `PostgresError`.
    public static func ofCampaigns(
        in run: ScheduledReportRun, session: ReportSession
    ) throws -> [ControlReport.CampaignKey: CumulativeLift] {
        var series: [ControlReport.CampaignKey: CumulativeLift] = [:]
        for campaign in run.control.campaigns
        where !campaign.isCanvas && campaign.conversionEvent != nil && campaign.controlArm != nil {
            let rows = try session.controlArmDays(app: campaign.app, campaign: campaign.campaignID, run.control.scope,
                                                  asOf: run.control.asOf)
            series[ControlReport.CampaignKey(app: campaign.app, campaignID: campaign.campaignID)] =
                CumulativeLift(rows: rows, from: run.control.scope.from)
        }
        return series
    }
}
