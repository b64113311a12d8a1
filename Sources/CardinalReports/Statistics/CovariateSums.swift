/// The sufficient statistics of one arm for CUPED: per user a metric y measured after exposure and a
/// covariate x measured before it (the same metric in a window before first exposure), summed over users.
///
/// Sums, not rows, so the report state can keep them per arm and the estimator never sees a user.
public struct CovariateSums: Sendable, Equatable {
    /// Users n.
    public var users: Int
    /// Σy.
    public var sumY: Double
    /// Σy².
    public var sumYSquares: Double
    /// Σx.
    public var sumX: Double
    /// Σx².
    public var sumXSquares: Double
    /// Σxy.
    public var sumXY: Double

    /// Creates an arm's sums.
    public init(users: Int, sumY: Double, sumYSquares: Double, sumX: Double, sumXSquares: Double, sumXY: Double) {
        self.users = users
        self.sumY = sumY
        self.sumYSquares = sumYSquares
        self.sumX = sumX
        self.sumXSquares = sumXSquares
        self.sumXY = sumXY
    }

    /// Two groups' users together (θ is estimated on both arms' sums; days of one arm add up the same way).
    public static func + (lhs: CovariateSums, rhs: CovariateSums) -> CovariateSums {
        CovariateSums(users: lhs.users + rhs.users, sumY: lhs.sumY + rhs.sumY,
                      sumYSquares: lhs.sumYSquares + rhs.sumYSquares, sumX: lhs.sumX + rhs.sumX,
                      sumXSquares: lhs.sumXSquares + rhs.sumXSquares, sumXY: lhs.sumXY + rhs.sumXY)
    }

    /// The sample variance of y, with Bessel's correction; 0 for fewer than two users.
    var varianceY: Double { sampleCovariance(sumY, sumY, sumYSquares) }
    /// The sample variance of x.
    var varianceX: Double { sampleCovariance(sumX, sumX, sumXSquares) }
    /// The sample covariance of x and y.
    var covarianceXY: Double { sampleCovariance(sumX, sumY, sumXY) }

    /// (Σab − Σa·Σb/n)/(n − 1).
    private func sampleCovariance(_ sumA: Double, _ sumB: Double, _ sumAB: Double) -> Double {
        guard users > 1 else { return 0 }
        let n = Double(users)
        return (sumAB - sumA * sumB / n) / (n - 1)
    }
}
