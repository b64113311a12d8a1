import CardinalReports

/// The arms every comparison test feeds to both engines: small and large arms, rates from 1 % to 50 %,
/// unequal arms, effects from none to clear, and a variant worse than control.
enum ComparisonCases {
    static let proportions: [(variant: ArmCounts, control: ArmCounts)] = [
        (ArmCounts(users: 10000, converters: 560), ArmCounts(users: 10000, converters: 500)),
        (ArmCounts(users: 10000, converters: 650), ArmCounts(users: 10000, converters: 500)),
        (ArmCounts(users: 2100, converters: 150), ArmCounts(users: 2000, converters: 100)),
        (ArmCounts(users: 50000, converters: 2750), ArmCounts(users: 50000, converters: 2500)),
        (ArmCounts(users: 199000, converters: 2150), ArmCounts(users: 200000, converters: 2000)),
        (ArmCounts(users: 1500, converters: 810), ArmCounts(users: 1500, converters: 750)),
        (ArmCounts(users: 30000, converters: 2700), ArmCounts(users: 30000, converters: 3000)),
        (ArmCounts(users: 5000, converters: 250), ArmCounts(users: 5000, converters: 250)),
    ]

    /// CUPED arms: per user a pre-exposure count x in 0…3 and a conversion y whose chance grows with x (and
    /// with `lift` in the variant). The draws are a golden-ratio (Weyl) sequence, evenly spread and the same on
    /// every run, so both engines see the same sums.
    static func cuped() -> [(variant: CovariateSums, control: CovariateSums)] {
        [(users: 4000, lift: 0.03), (users: 20000, lift: 0.0), (users: 1500, lift: 0.08)].map { shape in
            (covariateArm(users: shape.users, lift: shape.lift, offset: 0.1),
             covariateArm(users: shape.users, lift: 0, offset: 0.6))
        }
    }

    private static func covariateArm(users: Int, lift: Double, offset: Double) -> CovariateSums {
        let goldenRatioFraction = 0.618_033_988_749_894_9
        var sums = CovariateSums(users: users, sumY: 0, sumYSquares: 0, sumX: 0, sumXSquares: 0, sumXY: 0)
        for user in 0..<users {
            let x = Double(user * 7 % 4)
            let draw = (offset + Double(user) * goldenRatioFraction).truncatingRemainder(dividingBy: 1)
            let y: Double = draw < 0.08 + 0.12 * x + lift ? 1 : 0
            sums.sumY += y
            sums.sumYSquares += y * y
            sums.sumX += x
            sums.sumXSquares += x * x
            sums.sumXY += x * y
        }
        return sums
    }
}
