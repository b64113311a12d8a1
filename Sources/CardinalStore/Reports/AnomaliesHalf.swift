/// The two halves of `cardinal.anomalies` (`SQL/code/100_anomalies.sql`): they read
/// different report state, so two connections can compute them at once, on one snapshot (``ReportSnapshot``):
/// `control_impressions_missing` is judged in both, for a group and for a whole campaign.
public enum AnomaliesHalf: Sendable {
    /// Who was exposed to what (`cardinal.exposure_anomalies`): dismissals exceeding impressions, clicks or
    /// dismissals without an impression, control impressions missing in a group, control interactions, users
    /// in several arms.
    case exposure
    /// What is logged (`cardinal.logging_anomalies`): repeated impressions and dismissals, push opens missing,
    /// logging stopped, a campaign without any control exposure.
    case logging

    /// The SQL function that computes this half.
    /// The half's function, whose result has the columns of ``AnomalyFinding/columns``.
    public var resultColumns: SQLColumns {
        switch self {
        case .exposure: AnomalyFinding.columns.result(of: "cardinal.exposure_anomalies")
        case .logging: AnomalyFinding.columns.result(of: "cardinal.logging_anomalies")
        }
    }
}
