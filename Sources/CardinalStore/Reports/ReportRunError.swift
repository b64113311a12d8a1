/// A report run that cannot be finished.
public enum ReportRunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The run is not (or no longer) running: finished, failed, or deleted meanwhile.
    case notRunning(Int64)

    /// What happened.
    public var description: String {
        switch self {
        case .notRunning(let runID):
            "report run \(runID) is not running any more (finished, failed or deleted meanwhile); its results were not stored"
        }
    }
}
