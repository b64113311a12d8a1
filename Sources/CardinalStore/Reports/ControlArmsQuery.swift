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
        try connection.query(
            """
            select app_name, coalesce(campaign_id, canvas_id), conversion_event,
                   extract(epoch from window_length)::bigint, variant_id, control, users, converters, exposed_users,
                   users_in_several_arms, canvas_id is not null
            from cardinal.control_arms(app => $1, campaign => $2, from_date => $3, to_date => $4, as_of => $5,
                                       conversion => $6, conversion_window => $7::interval, include_test => $8,
                                       canvas => $9)
            """,
            [scope.app, scope.campaign, scope.from, scope.to, asOf, conversion, window, scope.includeTest,
             scope.canvas]
        ).map { row in
            let seconds = try row.decode(Int.self, at: 3)
            guard let decodedWindow = ConversionWindow(seconds: seconds) else {
                throw ReportDecodingError(
                    what: "conversion window", value: "\(seconds) seconds", expected: "between 1 second and 30 days"
                )
            }
            return ControlArmRow(
                app: try row.decode(String.self, at: 0),
                campaignID: try row.decode(String.self, at: 1),
                conversionEvent: try row.decode(String?.self, at: 2),
                window: decodedWindow,
                variantID: try row.decode(String?.self, at: 4),
                control: try row.decode(Bool.self, at: 5),
                users: try row.decode(Int.self, at: 6),
                converters: try row.decode(Int?.self, at: 7),
                exposedUsers: try row.decode(Int.self, at: 8),
                usersInSeveralArms: try row.decode(Int.self, at: 9),
                isCanvas: try row.decode(Bool.self, at: 10)
            )
        }
    }
}
