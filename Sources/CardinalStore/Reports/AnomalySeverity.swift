/// How bad an anomaly is; `--fail-on` compares against it.
public enum AnomalySeverity: String, Sendable, CaseIterable, Comparable {
    /// Worth knowing; affects under 1% of the users involved.
    case info
    /// A real integration problem (1% to 5% of the users involved, or a rule of thumb broken).
    case warning
    /// Distorts the reports (5% or more, or a whole arm missing).
    case critical

    /// info < warning < critical.
    public static func < (lhs: AnomalySeverity, rhs: AnomalySeverity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .critical: 2
        }
    }
}
