public import CardinalStore
public import Foundation

/// The scheduled job, `cardinal report run`: computes the three reports for the recent window and stores them,
/// stamped with a run in `cardinal.report_runs`, so that psql users and dashboards read the `latest_*` views
/// instead of recomputing.
public struct ScheduledReportRun: Sendable, Equatable {
    /// The run's id.
    public var runID: Int64
    /// The unique-impressions report as stored (no breakdown).
    public var uniqueImpressions: UniqueImpressionsReport
    /// The anomalies report as stored, sample ratio mismatches included.
    public var anomalies: AnomaliesReport
    /// The control report as stored.
    public var control: ControlReport

    /// Runs the job: records the run, computes every report, then stores the results and marks the run
    /// succeeded in one transaction. On any failure the run is marked failed with the error, and the error is
    /// rethrown; nothing of the run's results is stored then.
    /// - Parameters:
    ///   - session: A session whose connection is not inside a transaction.
    ///   - scope: The app (or all), the report days and test events; the campaign is normally `nil`.
    ///   - asOf: The maturity cut-off of the control report.
    ///   - store: Where the run is recorded and its results stored; `nil`: the session's database. A session on a
    ///     hot standby reads there and stores the run on the primary through this (docs/production-topology.md).
    ///   - cuped: Whether the control report adjusts its comparisons by CUPED and the run stores them; that reads
    ///     every matured user's pre-exposure conversions, so it is asked for.
    ///   - progress: Called as each step starts, for a progress line.
    public static func perform(
        session: ReportSession, scope: ReportScope, asOf: Date, store: ReportRunStore? = nil, cuped: Bool = false,
        progress: (Step) -> Void = { _ in }
    ) throws -> ScheduledReportRun {
        let store = store ?? session.runs
        let runID = try store.begin(scope: scope, asOf: asOf)
        do {
            progress(.uniqueImpressions)
            let uniqueImpressions = try UniqueImpressionsReport.run(session: session, scope: scope)
            progress(.control)
            let control = try ControlReport.run(session: session, scope: scope, asOf: asOf, cuped: cuped)
            progress(.anomalies)
            let anomalies = try AnomaliesReport.run(session: session, scope: scope, control: control)
            progress(.storing)
            try store.finish(
                runID: runID, uniqueImpressions: uniqueImpressions.rows, anomalies: anomalies.findings,
                control: control.records
            )
            return ScheduledReportRun(
                runID: runID, uniqueImpressions: uniqueImpressions, anomalies: anomalies, control: control
            )
        } catch {
            // The failure to record the failure is not worth hiding the original error for.
            try? store.fail(runID: runID, error: String(describing: error).split(separator: "\n").first.map(String.init) ?? "")
            throw error
        }
    }
}
