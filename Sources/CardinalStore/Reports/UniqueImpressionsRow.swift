/// One row of `cardinal.unique_impressions`: an app × campaign (or canvas step) × variant × channel, and the
/// breakdown value when one was asked for.
public struct UniqueImpressionsRow: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign; `nil` for a canvas step.
    public var campaignID: String?
    /// The canvas of a canvas step; `nil` for a campaign.
    public var canvasID: String?
    /// The canvas step; `nil` for a campaign.
    public var canvasStepID: String?
    /// The variant; `nil` for a message without variants.
    public var variantID: String?
    /// The channel.
    public var channel: String
    /// The value of the breakdown (a day as `YYYY-MM-DD`, a platform, a version); `nil` without one.
    public var breakdown: String?
    /// Impression events (control impressions are never impressions).
    public var impressions: Int64
    /// Users with an impression in the range.
    public var uniqueImpressions: Int64
    /// The sum over report days of the users with an impression that day.
    public var uniqueDailyImpressions: Int64
    /// The sum over report days of the users who received the message that day.
    public var uniqueRecipients: Int64
    /// Click events.
    public var clicks: Int64
    /// Users who clicked.
    public var uniqueClicks: Int64
    /// Dismissal events.
    public var dismissals: Int64
    /// Users who dismissed.
    public var uniqueDismissals: Int64
    /// clicks / impressions; `nil` without impressions.
    public var clickRate: Double?
    /// uniqueClicks / uniqueImpressions; `nil` without impressions.
    public var uniqueClickRate: Double?
    /// dismissals / impressions; `nil` without impressions.
    public var dismissalRate: Double?
    /// uniqueDismissals / uniqueImpressions; `nil` without impressions.
    public var uniqueDismissalRate: Double?
    /// Push only: direct opens, the push clicks; `nil` on other channels.
    public var directOpens: Int64?
    /// Push only: users with a direct open; `nil` on other channels.
    public var uniqueDirectOpens: Int64?
    /// Push only: users who opened the app (`session_start`) within the influenced-open window after a push
    /// send, without a direct open; `nil` on other channels.
    public var influencedOpens: Int64?
    /// Push only: uniqueDirectOpens + influencedOpens; `nil` on other channels.
    public var totalOpens: Int64?
    /// Push only: uniqueDirectOpens / uniqueRecipients; `nil` without recipients and on other channels.
    public var directOpenRate: Double?
    /// Push only: totalOpens / uniqueRecipients; `nil` without recipients and on other channels.
    public var totalOpenRate: Double?
    /// Push only: delivery events, the devices that reported the notification received; `nil` on other
    /// channels.
    public var deliveries: Int64?
    /// Push only: deliveries / send events; `nil` without sends and on other channels.
    public var deliveryRate: Double?

    /// Creates a row; the query decodes them from the database.
    public init(
        app: String, campaignID: String?, canvasID: String? = nil, canvasStepID: String? = nil, variantID: String?,
        channel: String, breakdown: String? = nil, impressions: Int64, uniqueImpressions: Int64,
        uniqueDailyImpressions: Int64, uniqueRecipients: Int64, clicks: Int64, uniqueClicks: Int64,
        dismissals: Int64, uniqueDismissals: Int64, clickRate: Double?, uniqueClickRate: Double?,
        dismissalRate: Double?, uniqueDismissalRate: Double?, push: PushColumns? = nil
    ) {
        self.app = app
        self.campaignID = campaignID
        self.canvasID = canvasID
        self.canvasStepID = canvasStepID
        self.variantID = variantID
        self.channel = channel
        self.breakdown = breakdown
        self.impressions = impressions
        self.uniqueImpressions = uniqueImpressions
        self.uniqueDailyImpressions = uniqueDailyImpressions
        self.uniqueRecipients = uniqueRecipients
        self.clicks = clicks
        self.uniqueClicks = uniqueClicks
        self.dismissals = dismissals
        self.uniqueDismissals = uniqueDismissals
        self.clickRate = clickRate
        self.uniqueClickRate = uniqueClickRate
        self.dismissalRate = dismissalRate
        self.uniqueDismissalRate = uniqueDismissalRate
        self.directOpens = push?.directOpens
        self.uniqueDirectOpens = push?.uniqueDirectOpens
        self.influencedOpens = push?.influencedOpens
        self.totalOpens = push?.totalOpens
        self.directOpenRate = push?.directOpenRate
        self.totalOpenRate = push?.totalOpenRate
        self.deliveries = push?.deliveries
        self.deliveryRate = push?.deliveryRate
    }
}
