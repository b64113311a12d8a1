extension ScheduledReportRun {
    /// The steps of a run, in order, as a progress line names them.
    public enum Step: Int, Sendable, CaseIterable, CustomStringConvertible {
        case uniqueImpressions = 1
        case control
        case anomalies
        case storing

        /// What the step does: `computing the control report`.
        public var description: String {
            switch self {
            case .uniqueImpressions: "computing the unique-impressions report"
            case .control: "computing the control report"
            case .anomalies: "computing the anomalies report"
            case .storing: "storing the results"
            }
        }

        /// Where the step stands: `step 2 of 4`.
        public var position: String {
            "step \(rawValue) of \(Self.allCases.count)"
        }
    }
}
