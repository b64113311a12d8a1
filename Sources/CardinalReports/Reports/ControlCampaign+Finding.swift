import CardinalStore

extension ControlCampaign {
    /// A campaign-wide finding of the control report about this campaign or canvas. A canvas's names the canvas
    /// and no step: its arms are the whole canvas's, as its other findings' arms are.
    func finding(
        _ kind: AnomalyKind, severity: AnomalySeverity, evidence: [AnomalyEvidence.Item], likelyCause: String
    ) -> AnomalyFinding {
        AnomalyFinding(
            kind: kind, severity: severity, app: app, campaignID: isCanvas ? nil : campaignID,
            canvasID: isCanvas ? campaignID : nil, evidence: AnomalyEvidence(evidence), likelyCause: likelyCause
        )
    }
}
