/// One row of `cardinal.control_arm_covariates`: CUPED's sums over one arm's matured users (those in one arm
/// only), of y (converted, 0 or 1) and x (the user's conversions of the same event in the pre-exposure window).
public struct ControlArmCovariateRow: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign; in a canvas report (``isCanvas``) the canvas.
    public var campaignID: String
    /// Whether the row is an arm of a canvas rather than of a campaign.
    public var isCanvas: Bool
    /// The variant of the arm; `nil` for the control arm and for a campaign without variants.
    public var variantID: String?
    /// Whether this is the control arm.
    public var control: Bool
    /// The pre-exposure window x was counted in, in seconds.
    public var windowSeconds: Int
    /// Matured users n, as `control_arms` counts them.
    public var users: Int
    /// Σy, the converters (y is 0 or 1, so Σy² is the same).
    public var converters: Int
    /// Σx.
    public var sumX: Int
    /// Σx².
    public var sumXSquares: Int
    /// Σxy, the pre-exposure conversions of the converters.
    public var sumXY: Int

    /// Creates a row.
    public init(
        app: String, campaignID: String, isCanvas: Bool = false, variantID: String?, control: Bool, windowSeconds: Int,
        users: Int, converters: Int, sumX: Int, sumXSquares: Int, sumXY: Int
    ) {
        self.app = app
        self.campaignID = campaignID
        self.isCanvas = isCanvas
        self.variantID = variantID
        self.control = control
        self.windowSeconds = windowSeconds
        self.users = users
        self.converters = converters
        self.sumX = sumX
        self.sumXSquares = sumXSquares
        self.sumXY = sumXY
    }
}
