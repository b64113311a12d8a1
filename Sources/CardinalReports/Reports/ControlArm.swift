/// One arm of a campaign in the control report.
public struct ControlArm: Sendable, Equatable {
    /// The name of the arm of a campaign whose events carry no `variant_id`, as written in an expected split.
    public static let defaultVariantName = "default"

    /// The variant; `nil` for the control arm and for a campaign without variant ids.
    public var variantID: String?
    /// Whether this is the control arm.
    public var control: Bool
    /// Matured users (exposed in the range, window elapsed, in this arm only).
    public var users: Int
    /// Matured users who converted within the window; `nil` without a conversion event.
    public var converters: Int?
    /// Users first exposed in the range, matured or not.
    public var exposedUsers: Int

    /// Creates an arm.
    public init(variantID: String?, control: Bool, users: Int, converters: Int?, exposedUsers: Int) {
        self.variantID = variantID
        self.control = control
        self.users = users
        self.converters = converters
        self.exposedUsers = exposedUsers
    }

    /// converters / users; `nil` without a conversion event or without users.
    public var rate: Double? {
        counts?.rate
    }

    /// The counts the statistics work on; `nil` without a conversion event.
    public var counts: ArmCounts? {
        converters.map { ArmCounts(users: users, converters: $0) }
    }

    /// The arm's name in an expected split: `control`, the variant id, or `default` without one.
    public var splitName: String {
        control ? "control" : variantID ?? Self.defaultVariantName
    }
}
