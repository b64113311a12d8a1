/// One integration-health finding: what is wrong, how badly, where (the group of events that shows it), the
/// numbers behind it, and the usual cause.
public struct AnomalyFinding: Sendable, Equatable {
    /// What is wrong.
    public var kind: AnomalyKind
    /// How badly.
    public var severity: AnomalySeverity
    /// The app's name.
    public var app: String
    /// The campaign.
    public var campaignID: String?
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
        kind: AnomalyKind, severity: AnomalySeverity, app: String, campaignID: String?, channel: String? = nil,
        platform: String? = nil, sdkVersion: String? = nil, appVersion: String? = nil, evidence: AnomalyEvidence,
        likelyCause: String
    ) {
        self.kind = kind
        self.severity = severity
        self.app = app
        self.campaignID = campaignID
        self.channel = channel
        self.platform = platform
        self.sdkVersion = sdkVersion
        self.appVersion = appVersion
        self.evidence = evidence
        self.likelyCause = likelyCause
    }
}
