public import CardinalStore

/// When `--fail-on` makes a report command exit with status 3: on any finding, or on findings of at least a
/// severity.
public enum FailThreshold: String, Sendable, CaseIterable {
    /// Any finding, info included.
    case anomalies
    /// A warning or a critical finding.
    case warning
    /// A critical finding.
    case critical

    /// The least severity that trips the threshold.
    public var minimumSeverity: AnomalySeverity {
        switch self {
        case .anomalies: .info
        case .warning: .warning
        case .critical: .critical
        }
    }

    /// Whether any of `findings` trips the threshold.
    public func isTripped(by findings: [AnomalyFinding]) -> Bool {
        findings.contains { $0.severity >= minimumSeverity }
    }
}
