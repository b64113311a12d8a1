public import Foundation
public import PostgresClient

/// Runs `cardinal.control_arm_conversions` for the conversion events after the primary one, which
/// ``ControlArmsQuery`` counts.
public struct ControlArmConversionsQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The arms of every campaign in scope (or of the scope's canvas) for each of its further conversion events
    /// (ordinals 2 to 4), by campaign, ordinal and arm, control first.
    /// - Parameters:
    ///   - asOf: Users whose exposure plus window is later are immature and not counted.
    ///   - window: The conversion window for every campaign, instead of each one's setting.
    public func run(_ scope: ReportScope, asOf: Date, window: ConversionWindow? = nil) throws -> [ControlArmConversionRow] {
        try connection.query(
            """
            select app_name, coalesce(campaign_id, canvas_id), ordinal, conversion_event, variant_id, control, users,
                   converters
            from cardinal.control_arm_conversions(app => $1, campaign => $2, from_date => $3, to_date => $4,
                                                  as_of => $5, include_test => $6, conversion_window => $7::interval,
                                                  canvas => $8, first_ordinal => 2)
            """,
            [scope.app, scope.campaign, scope.from, scope.to, asOf, scope.includeTest, window, scope.canvas]
        ).map { row in
            ControlArmConversionRow(
                app: try row.decode(String.self, at: 0),
                campaignID: try row.decode(String.self, at: 1),
                ordinal: Int(try row.decode(Int16.self, at: 2)),
                conversionEvent: try row.decode(String.self, at: 3),
                variantID: try row.decode(String?.self, at: 4),
                control: try row.decode(Bool.self, at: 5),
                users: try row.decode(Int.self, at: 6),
                converters: try row.decode(Int.self, at: 7)
            )
        }
    }
}
