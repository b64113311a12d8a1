/// One row of `cardinal.control_arm_days`: the counts of one arm of a campaign as the control report read at
/// the end of one report day would have given them.
public struct ControlArmDayRow: Sendable, Equatable {
    /// The report day whose end (or the run's as-of time, if earlier) the counts are as of.
    public var day: ReportDate
    /// The variant of the arm; `nil` for the control arm and for a campaign without variants.
    public var variantID: String?
    /// Whether this is the control arm.
    public var control: Bool
    /// Users first exposed from the range's first day to ``day`` whose window had ended by then.
    public var users: Int
    /// Those of them who converted within the window; `nil` without a conversion event.
    public var converters: Int?

    /// Creates a row.
    public init(day: ReportDate, variantID: String?, control: Bool, users: Int, converters: Int?) {
        self.day = day
        self.variantID = variantID
        self.control = control
        self.users = users
        self.converters = converters
    }
}
