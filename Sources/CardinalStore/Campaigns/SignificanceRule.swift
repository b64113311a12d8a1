/// Which numbers decide that a variant differs "significantly" from control: the fixed-horizon ones, valid for
/// a single look at a sample fixed in advance, or the always-valid ones, valid however often the report is read.
/// A campaign's setting (`cardinal campaigns set --significance`, `campaign_settings.significance`); the
/// control report decides with it (CardinalReports' `isSignificant`).
///
/// The default is ``sequential``: the control report runs every night and is read every morning, and with daily
/// looks over a month the fixed-horizon p-value falls below 0.05 on some day for 29 % of campaigns that have no
/// effect at all (`make experiment-simulation`: 2,000 A/A experiments, 200 users per arm and day), the
/// always-valid p-value for 1.8 %. The price is a wider interval (1.5 to 1.9 times as wide), so a real effect
/// takes longer to show.
public enum SignificanceRule: String, Sendable, CaseIterable {
    /// Holm-adjusted fixed-horizon p-value (pooled z-test) below 0.05.
    case fixed
    /// Holm-adjusted always-valid p-value (confidence sequence) below 0.05.
    case sequential

    /// The level both rules compare their p-value with.
    public static let level = 0.05

    /// The rule of a campaign that sets none.
    public static let standard = SignificanceRule.sequential
}
