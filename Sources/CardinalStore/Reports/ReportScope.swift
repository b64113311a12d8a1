/// What a report covers: which app and campaign, which report days, and whether test events count.
///
/// The arguments every report function takes (`SQL/code/090`–`120`).
public struct ReportScope: Sendable, Equatable {
    /// The app's name; `nil` for every app.
    public var app: String?
    /// The campaign id; `nil` for every campaign (and, in unique-impressions, every canvas step).
    public var campaign: String?
    /// The canvas id; `nil` for none. The anomalies report narrows to the canvas's steps' findings (with a
    /// campaign as well nothing matches, since a message comes from one or the other); the control report
    /// covers the canvas instead of campaigns; unique impressions take no canvas.
    public var canvas: String?
    /// The first report day, included.
    public var from: ReportDate
    /// The last report day, included.
    public var to: ReportDate
    /// Whether events flagged `test` count.
    public var includeTest: Bool

    /// Creates a scope.
    public init(
        app: String? = nil, campaign: String? = nil, canvas: String? = nil, from: ReportDate, to: ReportDate,
        includeTest: Bool = false
    ) {
        self.app = app
        self.campaign = campaign
        self.canvas = canvas
        self.from = from
        self.to = to
        self.includeTest = includeTest
    }
}
