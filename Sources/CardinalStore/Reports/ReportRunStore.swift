import CardinalCore
public import Foundation
public import PostgresClient

/// Records runs of the scheduled report job in `cardinal.report_runs` and stores their results in the report
/// tables, which the `latest_*` views show to psql users and dashboards.
public struct ReportRunStore {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`, which must not be inside a transaction: ``begin(scope:asOf:)``
    /// commits at once so that the run is visible while it computes.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Records the start of a run.
    /// - Returns: the run's id.
    public func begin(scope: ReportScope, asOf: Date) throws -> Int64 {
        let parameters = ReportJSON.object([
            "app": ReportJSON.string(scope.app),
            "from": .string(scope.from.description),
            "to": .string(scope.to.description),
            "as_of": .string(asOf.postgresText),
            "include_test": .bool(scope.includeTest),
        ])
        let json = PostgresJSON(text: parameters.compactText)
        let rows = try connection.query(
            "insert into cardinal.report_runs (parameters) values (\(json)::jsonb) returning run_id"
        )
        return try rows[0].decode(Int64.self, column: "run_id")
    }

    /// Stores a run's results and marks it succeeded, all in one transaction.
    public func finish(
        runID: Int64, uniqueImpressions: [UniqueImpressionsRow], anomalies: [AnomalyFinding],
        control: [ControlReportRecord]
    ) throws {
        try connection.transaction { connection in
            try connection.execute(Self.insert(runID: runID, uniqueImpressions))
            try connection.execute(Self.insert(runID: runID, anomalies))
            try connection.execute(Self.insert(runID: runID, control))
            let updated = try connection.execute(
                """
                update cardinal.report_runs
                set status = 'succeeded', finished_at = clock_timestamp(), anomaly_count = \(anomalies.count)
                where run_id = \(runID) and status = 'running'
                """
            )
            guard updated == 1 else {
                throw ReportRunError.notRunning(runID)
            }
        }
    }

    /// The unique-impressions rows stored by run `runID`, in report order (no breakdown: runs store none).
    public func uniqueImpressions(runID: Int64) throws -> [UniqueImpressionsRow] {
        let columns = UniqueImpressionsRow.columns
        return try connection.query(
            """
            select \(columns.storedList) from \(UniqueImpressionsRow.storedColumns.objectName)
            where run_id = \(runID) order by position
            """
        ).map(columns.decodeStored)
    }

    /// The findings stored by run `runID`, most severe first.
    public func anomalies(runID: Int64) throws -> [AnomalyFinding] {
        let columns = AnomalyFinding.columns
        return try connection.query(
            """
            select \(columns.storedList) from \(AnomalyFinding.storedColumns.objectName)
            where run_id = \(runID) order by position
            """
        ).map(columns.decodeStored)
    }

    /// Marks a run failed with the reason; its results, if any were being stored, were rolled back.
    public func fail(runID: Int64, error: String) throws {
        try connection.execute(
            """
            update cardinal.report_runs set status = 'failed', finished_at = clock_timestamp(), error = \(error)
            where run_id = \(runID) and status = 'running'
            """
        )
    }

    /// The run with id `runID`, or `nil` when there is none.
    public func run(id runID: Int64) throws -> ReportRun? {
        let columns = ReportRun.sqlColumns
        return try connection.query(
            "select \(columns.selectList) from \(columns.objectName) where \(identifier: columns["run_id"]) = \(runID)"
        ).first.map { row in
            let statusText = try row.decode(String.self, column: columns["status"])
            guard let status = ReportRun.Status(rawValue: statusText) else {
                throw ReportDecodingError(what: "report run status", value: statusText, expected: "running, succeeded or failed")
            }
            return ReportRun(
                id: try row.decode(Int64.self, column: columns["run_id"]),
                startedAt: try row.decode(Date.self, column: columns["started_at"]),
                finishedAt: try row.decode(Date?.self, column: columns["finished_at"]),
                parametersJSON: try row.decode(String.self, column: columns["parameters"]),
                status: status,
                anomalyCount: try row.decode(Int?.self, column: columns["anomaly_count"]),
                error: try row.decode(String?.self, column: columns["error"])
            )
        }
    }
}
