import CardinalReports
import Foundation

// `make experiment-simulation`: A/A experiments read daily, and experiments with a known lift, printed as shares
// with their Monte Carlo standard errors. Exits 1 when the always-valid false positive rate is above 5 % by more
// than the simulation's noise (two standard errors), which would mean the confidence sequence is broken.
let environment = ProcessInfo.processInfo.environment
func setting(_ name: String, _ fallback: Double) -> Double {
    environment[name].flatMap(Double.init) ?? fallback
}
let simulation = AASimulation(
    experiments: Int(setting("SIMULATION_EXPERIMENTS", 2000)), days: Int(setting("SIMULATION_DAYS", 30)),
    dailyUsers: Int(setting("SIMULATION_DAILY_USERS", 200)), controlRate: setting("SIMULATION_RATE", 0.1)
)
let lift = setting("SIMULATION_LIFT", 0.1)
var generator = SystemRandomNumberGenerator()

func share(_ count: Int) -> String {
    let p = Double(count) / Double(simulation.experiments)
    let standardError = (p * (1 - p) / Double(simulation.experiments)).squareRoot()
    return String(format: "%5.1f %% ± %.1f", 100 * p, 100 * standardError)
}

print("""
    \(simulation.experiments) experiments, \(simulation.days) daily looks, \(simulation.dailyUsers) users per arm \
    per day, control rate \(simulation.controlRate), α = 0.05 (± one standard error of the simulation)
    """)
let null = simulation.run(lift: 0, using: &generator)
print("A/A: share ever called significant on some day")
print("  fixed-horizon (pooled z, Holm)      \(share(null.everSignificantFixed))")
print("  always-valid (confidence sequence)  \(share(null.everSignificantSequential))")
let effect = simulation.run(lift: lift, using: &generator)
print("True lift \(lift * 100) %: coverage of the true difference by the 95 % intervals")
print("  fixed-horizon (Newcombe), last day  \(share(effect.coveredLastDayFixed))")
print("  fixed-horizon, every day at once    \(share(effect.coveredEveryDayFixed))")
print("  always-valid, last day              \(share(effect.coveredLastDaySequential))")
print("  always-valid, every day at once     \(share(effect.coveredEveryDaySequential))")
print("True lift \(lift * 100) %: share detected by the last day")
print("  fixed-horizon                       \(share(effect.everSignificantFixed))")
print("  always-valid                        \(share(effect.everSignificantSequential))")

let falsePositive = Double(null.everSignificantSequential) / Double(simulation.experiments)
let noise = 2 * (0.05 * 0.95 / Double(simulation.experiments)).squareRoot()
if falsePositive > 0.05 + noise {
    print("FAIL: the always-valid false positive rate is above 5 %")
    exit(1)
}
