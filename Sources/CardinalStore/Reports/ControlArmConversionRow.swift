/// One row of `cardinal.control_arm_conversions`: the counts of one arm of a campaign (or canvas) for one of
/// its conversion events.
public struct ControlArmConversionRow: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign; in a canvas report the canvas (as ``ControlArmRow/campaignID``).
    public var campaignID: String
    /// The conversion event's position among the campaign's: 1 is the primary, 2 to 4 the others.
    public var ordinal: Int
    /// The conversion event counted.
    public var conversionEvent: String
    /// The variant of the arm; `nil` for the control arm and for a campaign without variants.
    public var variantID: String?
    /// Whether this is the control arm.
    public var control: Bool
    /// Matured users of the arm, as in ``ControlArmRow/users``.
    public var users: Int
    /// Matured users who converted with this event within the window.
    public var converters: Int

    /// Creates a row.
    public init(
        app: String, campaignID: String, ordinal: Int, conversionEvent: String, variantID: String?, control: Bool,
        users: Int, converters: Int
    ) {
        self.app = app
        self.campaignID = campaignID
        self.ordinal = ordinal
        self.conversionEvent = conversionEvent
        self.variantID = variantID
        self.control = control
        self.users = users
        self.converters = converters
    }
}
