import CardinalStore
import Foundation

extension ControlReport {
    /// The power figures of a variant arm against the control arm of the same conversion event; `nil` for the
    /// control arm, an arm without a conversion event, and a campaign without a control arm.
    ///
    /// The arms' pace is their users exposed in the report's range over the days of the range that have passed
    /// by `--as-of`, the range's days taken as UTC days: a campaign that started inside the range looks slower
    /// than it is, until the first exposure day is read from the report state (it needs a report function).
    func power(of arm: ControlArm, against control: ControlArm?, window: ConversionWindow) -> ExperimentPower? {
        guard !arm.control, let variantCounts = arm.counts, let control, let controlCounts = control.counts
        else { return nil }
        return ExperimentPower.estimate(
            variant: ExperimentPower.ArmTraffic(counts: variantCounts, exposedUsers: arm.exposedUsers),
            control: ExperimentPower.ArmTraffic(counts: controlCounts, exposedUsers: control.exposedUsers),
            observedDays: observedDays, windowDays: window.days, targetLift: targetLift
        )
    }

    /// Days from the start of `--from` to the end of `--to` or `--as-of`, whichever comes first.
    var observedDays: Double {
        let secondsPerDay = 86_400.0
        let start = Double(scope.from.daysSinceEpoch) * secondsPerDay
        let end = min(asOf.timeIntervalSince1970, Double(scope.to.daysSinceEpoch + 1) * secondsPerDay)
        return max(0, (end - start) / secondsPerDay)
    }
}
