/// One integration-health finding: what is wrong, how badly, where (the group of events that shows it), the
/// numbers behind it, and the usual cause.
public struct AnomalyFinding: Sendable, Equatable {
    /// What is wrong.
    public var kind: AnomalyKind
    /// How badly.
    public var severity: AnomalySeverity
    /// The app's name.
    public var app: String
    /// The campaign; `nil` for a canvas step.
    public var campaignID: String?
    /// The canvas of the canvas step; `nil` for a campaign.
    public var canvasID: String?
    /// The canvas step whose events show the problem; `nil` for a campaign.
    public var canvasStepID: String?
    /// The channel of the events; `nil` for campaign-wide findings.
    public var channel: String?
    /// The platform of the events; `nil` when not sent or campaign-wide.
    public var platform: String?
    /// The SDK version of the events; `nil` when not sent or campaign-wide.
    public var sdkVersion: String?
    /// The app version of the events; `nil` when not sent or campaign-wide.
    public var appVersion: String?
    /// The numbers behind the finding.
    public var evidence: AnomalyEvidence
    /// One line on the usual cause.
    public var likelyCause: String

    /// Creates a finding.
    public init(
        kind: AnomalyKind, severity: AnomalySeverity, app: String, campaignID: String?, canvasID: String? = nil,
        canvasStepID: String? = nil, channel: String? = nil, platform: String? = nil, sdkVersion: String? = nil,
        appVersion: String? = nil, evidence: AnomalyEvidence, likelyCause: String
    ) {
        self.kind = kind
        self.severity = severity
        self.app = app
        self.campaignID = campaignID
        self.canvasID = canvasID
        self.canvasStepID = canvasStepID
        self.channel = channel
        self.platform = platform
        self.sdkVersion = sdkVersion
        self.appVersion = appVersion
        self.evidence = evidence
        self.likelyCause = likelyCause
    }
}
