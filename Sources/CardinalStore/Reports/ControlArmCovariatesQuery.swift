public import Foundation
public import PostgresClient

/// Runs `cardinal.control_arm_covariates`, the same function psql users call, and decodes its rows.
public struct ControlArmCovariatesQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// CUPED's sums per arm of every campaign in scope with a conversion event and matured users (or of the
    /// scope's canvas), with the arguments of ``ControlArmsQuery/run(_:asOf:conversion:window:)``; each
    /// campaign's pre-exposure window is its setting (14 days when none).
    public func run(
        _ scope: ReportScope, asOf: Date, conversion: String? = nil, window: ConversionWindow? = nil
    ) throws -> [ControlArmCovariateRow] {
        let columns = ControlArmCovariateRow.sqlColumns
        return try connection.query(
            """
            select \(columns.selectList),
                   extract(epoch from \(identifier: columns["pre_exposure_window"]))::bigint as window_seconds
            from \(columns.objectName)(app => \(scope.app), campaign => \(scope.campaign), from_date => \(scope.from),
                                       to_date => \(scope.to), as_of => \(asOf), conversion => \(conversion),
                                       conversion_window => \(window)::interval, include_test => \(scope.includeTest),
                                       canvas => \(scope.canvas))
            """
        ).map { row in
            ControlArmCovariateRow(
                app: try row.decode(String.self, column: columns["app_name"]),
                campaignID: try row.campaignOrCanvas(columns),
                isCanvas: try row.decode(String?.self, column: columns["canvas_id"]) != nil,
                variantID: try row.decode(String?.self, column: columns["variant_id"]),
                control: try row.decode(Bool.self, column: columns["control"]),
                windowSeconds: try row.decode(Int.self, column: "window_seconds"),
                users: try row.decode(Int.self, column: columns["users"]),
                converters: try row.decode(Int.self, column: columns["converters"]),
                sumX: try row.decode(Int.self, column: columns["sum_x"]),
                sumXSquares: try row.decode(Int.self, column: columns["sum_x_squares"]),
                sumXY: try row.decode(Int.self, column: columns["sum_xy"])
            )
        }
    }
}
