public import CardinalStore

/// Each variant's relative lift over control day by day, as the control report read at the end of each day
/// would have given it: the series of the campaign page's cumulative lift chart, from the arm counts of
/// `cardinal.control_arm_days`.
///
/// Per day: the lift (p_v − p_c)/p_c of the users matured so far, its always-valid 95 % interval
/// (``AlwaysValidComparison``), which holds on every day at once and narrows as users accumulate, and the
/// fixed-horizon Katz interval of that day's report for contrast, valid for that one day alone.
public struct CumulativeLift: Sendable, Equatable {
    /// One day of one variant.
    public struct Point: Sendable, Equatable {
        /// The report day whose end the counts are as of.
        public var day: ReportDate
        /// The variant's matured users and converters so far.
        public var variant: ArmCounts
        /// Control's matured users and converters so far.
        public var control: ArmCounts
        /// The relative lift; `nil` while an arm has no users or control's rate is 0.
        public var lift: Double?
        /// The always-valid 95 % interval of the lift; `nil` where it is undefined (``AlwaysValidComparison``).
        public var alwaysValid: Interval?
        /// Katz's fixed-horizon 95 % interval of the lift; `nil` while an arm has no converters.
        public var fixedHorizon: Interval?
    }

    /// One variant's days.
    public struct Variant: Sendable, Equatable {
        /// The variant id, or `default` for a campaign without variant ids.
        public var name: String
        /// One point per day of ``CumulativeLift/days`` on which both arms had matured users.
        public var points: [Point]
    }

    /// The days of the series, the range's first day to the last one the rows reach.
    public var days: [ReportDate]
    /// The variants, in the order the rows list them.
    public var variants: [Variant]

    /// The series of one campaign.
    /// - Parameters:
    ///   - rows: The campaign's `control_arm_days` rows.
    ///   - from: The range's first day.
    /// - Returns: `nil` without a control arm or without a conversion event (nothing to compare).
    public init?(rows: [ControlArmDayRow], from: ReportDate) {
        guard let last = rows.map(\.day).max(), rows.contains(where: \.control),
              rows.allSatisfy({ $0.converters != nil })
        else {
            return nil
        }
        let days = (0...max(0, last.daysSinceEpoch - from.daysSinceEpoch)).map { from.adding(days: $0) }
        var names: [String] = []
        for row in rows where !row.control {
            let name = row.variantID ?? ControlArm.defaultVariantName
            if !names.contains(name) {
                names.append(name)
            }
        }
        let counts = Dictionary(rows.map { row in
            (Key(day: row.day, arm: row.control ? nil : row.variantID ?? ControlArm.defaultVariantName),
             ArmCounts(users: row.users, converters: row.converters ?? 0))
        }, uniquingKeysWith: { first, _ in first })
        self.days = days
        variants = names.map { name in
            Variant(name: name, points: days.compactMap { day in
                guard let variant = counts[Key(day: day, arm: name)], let control = counts[Key(day: day, arm: nil)],
                      let variantRate = variant.rate, let controlRate = control.rate
                else {
                    return nil
                }
                return Point(
                    day: day, variant: variant, control: control,
                    lift: controlRate > 0 ? (variantRate - controlRate) / controlRate : nil,
                    alwaysValid: AlwaysValidComparison.compare(variant: variant, control: control,
                                                               sequence: ControlStatistics.sequence).relativeLiftInterval,
                    fixedHorizon: KatzInterval.relativeLift(variant: variant, control: control, z: ControlStatistics.z95)
                )
            })
        }
    }

    /// A day's arm: `nil` for control, else the variant's name.
    private struct Key: Hashable {
        var day: ReportDate
        var arm: String?
    }
}
