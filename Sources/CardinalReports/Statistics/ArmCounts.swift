/// The two numbers an arm of a control-group comparison is reduced to: matured users and those who converted.
///
/// Counts come from the database, so they are not trusted blindly: an arm with no users, or with counts that
/// cannot be (negative, or more converters than users), has no ``rate`` and every statistic that needs it is
/// `nil` rather than NaN or a crash.
public struct ArmCounts: Sendable, Equatable {
    /// Users whose whole conversion window has elapsed (matured users).
    public var users: Int
    /// Users among ``users`` who converted within the window.
    public var converters: Int

    /// Creates the counts of one arm.
    ///
    /// - Parameters:
    ///   - users: Matured users of the arm.
    ///   - converters: Those of them who converted.
    public init(users: Int, converters: Int) {
        self.users = users
        self.converters = converters
    }

    /// The conversion rate converters / users, or `nil` when the arm has no users or its counts are
    /// inconsistent.
    public var rate: Double? {
        guard hasConsistentCounts else { return nil }
        return Double(converters) / Double(users)
    }

    /// Whether the counts describe a real sample: at least one user and 0 ≤ converters ≤ users.
    var hasConsistentCounts: Bool {
        users > 0 && converters >= 0 && converters <= users
    }

    /// Users who did not convert.
    var nonConverters: Int { users - converters }
}
