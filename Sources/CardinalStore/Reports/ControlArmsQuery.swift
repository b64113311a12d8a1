public import Foundation
public import PostgresClient

/// Runs `cardinal.control_arms`, the same function psql users call, and decodes its rows.
public struct ControlArmsQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The arms of every campaign in scope with an exposure in the range (or of the scope's canvas), the
    /// control arm of each first.
    /// - Parameters:
    ///   - scope: App, campaign or canvas, report days and test events.
    ///   - asOf: Users whose exposure plus window is later are immature and not counted.
    ///   - conversion: The conversion event for every campaign, instead of each one's setting.
    ///   - window: The conversion window for every campaign, instead of each one's setting.
    public func run(
        _ scope: ReportScope, asOf: Date, conversion: String? = nil, window: ConversionWindow? = nil
    ) throws -> [ControlArmRow] {
        let columns = ControlArmRow.sqlColumns
        return try connection.query(
            """
            select \(columns.selectList),
                   extract(epoch from \(identifier: columns["window_length"]))::bigint as window_seconds
            from \(columns.objectName)(app => \(scope.app), campaign => \(scope.campaign), from_date => \(scope.from),
                                       to_date => \(scope.to), as_of => \(asOf), conversion => \(conversion),
                                       conversion_window => \(window)::interval, include_test => \(scope.includeTest),
                                       canvas => \(scope.canvas))
            """
        ).map { row in
            let seconds = try row.decode(Int.self, column: "window_seconds")
            guard let decodedWindow = ConversionWindow(seconds: seconds) else {
                throw ReportDecodingError(
                    what: "conversion window", value: "\(seconds) seconds", expected: "between 1 second and 30 days"
                )
            }
            return ControlArmRow(
                app: try row.decode(String.self, column: columns["app_name"]),
                campaignID: try row.campaignOrCanvas(columns),
                conversionEvent: try row.decode(String?.self, column: columns["conversion_event"]),
                window: decodedWindow,
                variantID: try row.decode(String?.self, column: columns["variant_id"]),
                control: try row.decode(Bool.self, column: columns["control"]),
                users: try row.decode(Int.self, column: columns["users"]),
                converters: try row.decode(Int?.self, column: columns["converters"]),
                exposedUsers: try row.decode(Int.self, column: columns["exposed_users"]),
                usersInSeveralArms: try row.decode(Int.self, column: columns["users_in_several_arms"]),
                isCanvas: try row.decode(String?.self, column: columns["canvas_id"]) != nil
            )
        }
    }
}
