extension ExperimentPower {
    /// How many users an arm has and how fast it gets more.
    public struct ArmTraffic: Sendable, Equatable {
        /// Matured users and their converters, as the statistics count them.
        public var counts: ArmCounts
        /// Users exposed in the range, matured or not.
        public var exposedUsers: Int

        /// Creates an arm's traffic.
        public init(counts: ArmCounts, exposedUsers: Int) {
            self.counts = counts
            self.exposedUsers = exposedUsers
        }
    }

    /// The figures for a variant against control.
    ///
    /// The days needed extrapolate each arm's pace, exposed users per day over `observedDays`: the users still
    /// missing beyond those already exposed, at that pace, plus the conversion window the last of them needs to
    /// mature. The slower arm decides. When the matured users already suffice the answer is 0.
    ///
    /// - Parameters:
    ///   - variant: The variant's traffic.
    ///   - control: Control's traffic; its rate is the baseline.
    ///   - observedDays: The days the exposed users were gathered over.
    ///   - windowDays: The conversion window in days.
    ///   - targetLift: The relative lift to plan for (0.1 for +10 %), or `nil`.
    public static func estimate(
        variant: ArmTraffic, control: ArmTraffic, observedDays: Double, windowDays: Double, targetLift: Double?
    ) -> ExperimentPower {
        guard let controlRate = control.counts.rate, variant.counts.rate != nil else {
            return ExperimentPower(targetLift: targetLift)
        }
        let difference = PowerCalculation.minimumDetectableDifference(
            controlRate: controlRate, variantUsers: variant.counts.users, controlUsers: control.counts.users
        )
        return ExperimentPower(
            minimumDetectableDifference: difference,
            minimumDetectableLift: controlRate > 0 ? difference.map { $0 / controlRate } : nil,
            targetLift: targetLift,
            daysToTarget: targetLift.flatMap {
                days(lift: $0, controlRate: controlRate, variant: variant, control: control,
                     observedDays: observedDays, windowDays: windowDays)
            }
        )
    }

    private static func days(
        lift: Double, controlRate: Double, variant: ArmTraffic, control: ArmTraffic, observedDays: Double,
        windowDays: Double
    ) -> Double? {
        let ratio = Double(variant.counts.users) / Double(control.counts.users)
        guard let needed = PowerCalculation.usersNeeded(controlRate: controlRate, lift: lift, ratio: ratio) else {
            return nil
        }
        if Double(control.counts.users) >= needed.control, Double(variant.counts.users) >= needed.variant {
            return 0
        }
        guard observedDays > 0, control.exposedUsers > 0, variant.exposedUsers > 0 else { return nil }
        let controlDays = (needed.control - Double(control.exposedUsers)) * observedDays / Double(control.exposedUsers)
        let variantDays = (needed.variant - Double(variant.exposedUsers)) * observedDays / Double(variant.exposedUsers)
        return max(0, controlDays, variantDays) + windowDays
    }
}
