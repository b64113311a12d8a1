/// Where the significance rule a campaign was judged by came from. Stored in
/// `report_control.significance_source`.
public enum SignificanceSource: String, Sendable, CaseIterable {
    /// `cardinal report control --significance`, which overrides every campaign's setting.
    case option
    /// The campaign's setting, `cardinal campaigns set --significance`.
    case campaign
    /// Neither: ``SignificanceRule/standard``.
    case `default`
}
