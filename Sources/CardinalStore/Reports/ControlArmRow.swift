/// One row of `cardinal.control_arms`: the counts of one arm of a campaign.
public struct ControlArmRow: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign; in a canvas report (``isCanvas``) the canvas, whose id also keys its settings.
    public var campaignID: String
    /// Whether the row is an arm of a canvas (`control_arms(canvas => …)`) rather than of a campaign.
    public var isCanvas: Bool
    /// The conversion event counted; `nil` when the campaign has none.
    public var conversionEvent: String?
    /// The conversion window used.
    public var window: ConversionWindow
    /// The variant of the arm; `nil` for the control arm and for a campaign without variants.
    public var variantID: String?
    /// Whether this is the control arm.
    public var control: Bool
    /// Matured users: exposed in the range, window elapsed by `as_of`, in this arm only.
    public var users: Int
    /// Matured users who converted within the window; `nil` without a conversion event.
    public var converters: Int?
    /// Users first exposed in the range, matured or not.
    public var exposedUsers: Int
    /// Users of the campaign left out for being exposed to several arms.
    public var usersInSeveralArms: Int

    /// Creates a row.
    public init(
        app: String, campaignID: String, conversionEvent: String?, window: ConversionWindow, variantID: String?,
        control: Bool, users: Int, converters: Int?, exposedUsers: Int, usersInSeveralArms: Int, isCanvas: Bool = false
    ) {
        self.isCanvas = isCanvas
        self.app = app
        self.campaignID = campaignID
        self.conversionEvent = conversionEvent
        self.window = window
        self.variantID = variantID
        self.control = control
        self.users = users
        self.converters = converters
        self.exposedUsers = exposedUsers
        self.usersInSeveralArms = usersInSeveralArms
    }
}
