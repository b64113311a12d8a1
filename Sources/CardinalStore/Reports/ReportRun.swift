public import Foundation

/// A run of the scheduled report job, a row of `cardinal.report_runs`.
public struct ReportRun: Sendable, Equatable {
    /// How a run ended, or that it has not.
    public enum Status: String, Sendable {
        /// Still computing (or killed before it could record its end).
        case running
        /// Stored its results.
        case succeeded
        /// Stored nothing; see ``ReportRun/error``.
        case failed
    }

    /// The run's id, stamped on its result rows.
    public var id: Int64
    /// When it started.
    public var startedAt: Date
    /// When it ended.
    public var finishedAt: Date?
    /// Its parameters as a JSON object.
    public var parametersJSON: String
    /// How it ended.
    public var status: Status
    /// How many anomaly findings it stored.
    public var anomalyCount: Int?
    /// Why it failed.
    public var error: String?
}
