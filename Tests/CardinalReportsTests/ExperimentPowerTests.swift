import CardinalReports
import Testing

/// Power and duration on examples worked by hand: (z₀.₉₇₅ + z₀.₈) = 1.959964 + 0.841621 = 2.801585.
@Suite struct ExperimentPowerTests {
    private func traffic(_ users: Int, _ converters: Int, exposed: Int) -> ExperimentPower.ArmTraffic {
        ExperimentPower.ArmTraffic(counts: ArmCounts(users: users, converters: converters), exposedUsers: exposed)
    }

    @Test("Two arms of 10,000 at a 5 % control rate detect 0.0086351 (a lift of 17.27 %)")
    func minimumDetectableEffect() {
        // 2.801585 · √(0.05 · 0.95 · 2/10,000) = 2.801585 · 0.00308221 = 0.00863507.
        let power = ExperimentPower.estimate(
            variant: traffic(10000, 530, exposed: 12000), control: traffic(10000, 500, exposed: 12000),
            observedDays: 20, windowDays: 3, targetLift: nil
        )
        expectClose(power.minimumDetectableDifference, 0.0086350656, tolerance: 1e-9, "MDE")
        expectClose(power.minimumDetectableLift, 0.1727013115, tolerance: 1e-9, "MDE as a lift")
        #expect(power.daysToTarget == nil)
    }

    @Test("A +10 % lift needs 29,826 users per arm: 29.7 more days at 600 a day, plus the 3-day window")
    func daysToTarget() {
        // n = 2.801585² · 0.0475 · 2 / 0.005² = 29,825.74; (29,825.74 − 12,000) / 600 + 3 = 32.7096.
        let power = ExperimentPower.estimate(
            variant: traffic(10000, 530, exposed: 12000), control: traffic(10000, 500, exposed: 12000),
            observedDays: 20, windowDays: 3, targetLift: 0.1
        )
        expectClose(power.daysToTarget, 32.7095716505, tolerance: 1e-6, "days")
        #expect(power.targetLift == 0.1)
    }

    @Test("The slower arm decides how long it takes")
    func slowerArmDecides() throws {
        // Control at 300 a day needs (29,825.74 − 6,000) / 300 = 79.42 days, the variant only 29.71.
        let power = ExperimentPower.estimate(
            variant: traffic(10000, 530, exposed: 12000), control: traffic(10000, 500, exposed: 6000),
            observedDays: 20, windowDays: 0, targetLift: 0.1
        )
        expectClose(power.daysToTarget, 79.4191433, tolerance: 1e-6, "days")
    }

    @Test("A lift the current sample already detects needs no more days")
    func alreadyEnough() {
        let power = ExperimentPower.estimate(
            variant: traffic(10000, 530, exposed: 12000), control: traffic(10000, 500, exposed: 12000),
            observedDays: 20, windowDays: 3, targetLift: 0.2
        )
        #expect(power.daysToTarget == 0)
    }

    @Test("Without converters in control there is nothing to plan with")
    func zeroControlRate() {
        let power = ExperimentPower.estimate(
            variant: traffic(100, 3, exposed: 100), control: traffic(100, 0, exposed: 100),
            observedDays: 5, windowDays: 1, targetLift: 0.1
        )
        #expect(power == ExperimentPower(targetLift: 0.1))
    }
}
