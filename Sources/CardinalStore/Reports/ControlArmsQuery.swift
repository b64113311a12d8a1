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
            select app_name, coalesce(campaign_id, canvas_id) as campaign_id, conversion_event,
                   extract(epoch from window_length)::bigint as window_seconds, variant_id, control, users, converters,
                   exposed_users, users_in_several_arms, canvas_id is not null as is_canvas
            from cardinal.control_arms(app => \(scope.app), campaign => \(scope.campaign), from_date => \(scope.from),
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
                app: try row.decode(String.self, column: "app_name"),
                campaignID: try row.decode(String.self, column: "campaign_id"),
                conversionEvent: try row.decode(String?.self, column: "conversion_event"),
                window: decodedWindow,
                variantID: try row.decode(String?.self, column: "variant_id"),
                control: try row.decode(Bool.self, column: "control"),
                users: try row.decode(Int.self, column: "users"),
                converters: try row.decode(Int?.self, column: "converters"),
                exposedUsers: try row.decode(Int.self, column: "exposed_users"),
                usersInSeveralArms: try row.decode(Int.self, column: "users_in_several_arms"),
                isCanvas: try row.decode(Bool.self, column: "is_canvas")
            )
        }
    }
}
