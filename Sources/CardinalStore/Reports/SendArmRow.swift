/// One row of `cardinal.send_arms`: the users a campaign sent to in one arm, the assignment data a sample
/// ratio check can learn the expected split from.
public struct SendArmRow: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The campaign.
    public var campaignID: String
    /// The variant of the sends; `nil` for control sends and for sends without a variant id.
    public var variantID: String?
    /// Whether these are control sends (`control: true`).
    public var control: Bool
    /// Users with a send of this arm in the range.
    public var users: Int

    /// Creates a row.
    public init(app: String, campaignID: String, variantID: String?, control: Bool, users: Int) {
        self.app = app
        self.campaignID = campaignID
        self.variantID = variantID
        self.control = control
        self.users = users
    }
}
