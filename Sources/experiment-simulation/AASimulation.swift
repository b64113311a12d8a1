import CardinalReports
import CardinalStore

/// Many simulated experiments, each read once a day: how often the control report's numbers call a variant
/// significant when it has no effect, and how often its intervals cover a known effect.
///
/// Every day each arm gets `dailyUsers` new matured users who convert independently with their arm's rate;
/// the report is read on the cumulative counts, as `cardinal report run` reads them every night.
struct AASimulation {
    /// The simulated experiments.
    let experiments: Int
    /// Daily looks per experiment.
    let days: Int
    /// New users per arm per day.
    let dailyUsers: Int
    /// Control's conversion rate.
    let controlRate: Double

    /// What happened over all experiments with one true lift.
    struct Outcome {
        /// Experiments called significant on at least one day, by the fixed-horizon and always-valid rules.
        var everSignificantFixed = 0
        var everSignificantSequential = 0
        /// Experiments whose interval covered the true difference on the last day.
        var coveredLastDayFixed = 0
        var coveredLastDaySequential = 0
        /// Experiments whose interval covered the true difference on every day.
        var coveredEveryDayFixed = 0
        var coveredEveryDaySequential = 0
    }

    /// Runs the experiments with the variant's rate controlRate·(1 + lift).
    func run(lift: Double, using generator: inout some RandomNumberGenerator) -> Outcome {
        let variantRate = controlRate * (1 + lift)
        let trueDifference = variantRate - controlRate
        var outcome = Outcome()
        for _ in 0..<experiments {
            var control = ArmCounts(users: 0, converters: 0)
            var variant = ArmCounts(users: 0, converters: 0)
            var significantFixed = false
            var significantSequential = false
            var coveredFixed = true
            var coveredSequential = true
            for day in 1...days {
                control.users += dailyUsers
                control.converters += converters(dailyUsers, rate: controlRate, &generator)
                variant.users += dailyUsers
                variant.converters += converters(dailyUsers, rate: variantRate, &generator)
                let comparison = ControlStatistics.compareAll(variants: [variant], control: control)[0]
                significantFixed = significantFixed || SignificanceRule.fixed.isSignificant(comparison) == true
                significantSequential = significantSequential
                    || SignificanceRule.sequential.isSignificant(comparison) == true
                let fixed = covers(comparison.differenceCI95, trueDifference)
                let sequential = covers(comparison.alwaysValid.differenceInterval, trueDifference)
                coveredFixed = coveredFixed && fixed
                coveredSequential = coveredSequential && sequential
                if day == days {
                    outcome.coveredLastDayFixed += fixed ? 1 : 0
                    outcome.coveredLastDaySequential += sequential ? 1 : 0
                }
            }
            outcome.everSignificantFixed += significantFixed ? 1 : 0
            outcome.everSignificantSequential += significantSequential ? 1 : 0
            outcome.coveredEveryDayFixed += coveredFixed ? 1 : 0
            outcome.coveredEveryDaySequential += coveredSequential ? 1 : 0
        }
        return outcome
    }

    /// Converters among `users` who each convert with `rate`.
    private func converters(_ users: Int, rate: Double, _ generator: inout some RandomNumberGenerator) -> Int {
        (0..<users).count { _ in Double.random(in: 0..<1, using: &generator) < rate }
    }

    /// Whether `interval` contains `value`; an undefined interval covers nothing.
    private func covers(_ interval: Interval?, _ value: Double) -> Bool {
        guard let interval else { return false }
        return interval.lower <= value && value <= interval.upper
    }
}
