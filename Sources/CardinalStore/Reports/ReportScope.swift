/// What a report covers: which app and campaign, which report days, and whether test events count.
///
/// The arguments every report function of `SQL/migrations/0010`–`0012` takes.
public struct ReportScope: Sendable, Equatable {
    /// The app's name; `nil` for every app.
    public var app: String?
    /// The campaign id; `nil` for every campaign (and, in unique-impressions, every canvas step).
    public var campaign: String?
    /// The canvas the control report covers instead of campaigns; `nil` for campaigns (the other reports
    /// take no canvas).
    public var canvas: String?
    /// The first report day, included.
    public var from: ReportDate
    /// The last report day, included.
    public var to: ReportDate
    /// Whether events flagged `test` count.
    public var includeTest: Bool

    /// Creates a scope.
    public init(
        app: String? = nil, campaign: String? = nil, from: ReportDate, to: ReportDate, includeTest: Bool = false,
        canvas: String? = nil
    ) {
        self.canvas = canvas
        self.app = app
        self.campaign = campaign
        self.from = from
        self.to = to
        self.includeTest = includeTest
    }
}
