public import Foundation
public import PostgresClient

/// Runs `cardinal.control_arm_days`, the same function psql users call, and decodes its rows.
public struct ControlArmDaysQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The arms of one campaign day by day, from the first report day to the last one `asOf` has reached: each
    /// day's rows are those of the control report over the days up to it, as of its end (or `asOf`, if
    /// earlier). Days in order, the control arm first within a day.
    /// - Parameters:
    ///   - app: The app's name.
    ///   - campaign: The campaign.
    ///   - scope: The report days and test events (its app and campaign are not read).
    ///   - asOf: The run's maturity cut-off; the last day's rows are the control report's at it.
    /// - Throws: `PostgresError`, e.g. SQLSTATE 22023 when `scope.from` is after `scope.to`.
    public func run(app: String, campaign: String, _ scope: ReportScope, asOf: Date) throws -> [ControlArmDayRow] {
        let columns = ControlArmDayRow.sqlColumns
        return try connection.query(
            """
            select \(columns.selectList)
            from \(columns.objectName)(app => \(app), campaign => \(campaign), from_date => \(scope.from),
                                       to_date => \(scope.to), as_of => \(asOf),
                                       include_test => \(scope.includeTest))
            """
        ).map { row in
            ControlArmDayRow(
                day: try row.decode(ReportDate.self, column: columns["day"]),
                variantID: try row.decode(String?.self, column: columns["variant_id"]),
                control: try row.decode(Bool.self, column: columns["control"]),
                users: try row.decode(Int.self, column: columns["users"]),
                converters: try row.decode(Int?.self, column: columns["converters"])
            )
        }
    }
}
