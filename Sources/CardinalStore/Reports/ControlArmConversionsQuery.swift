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
        let columns = ControlArmConversionRow.sqlColumns
        return try connection.query(
            """
            select \(columns.selectList)
            from \(columns.objectName)(app => \(scope.app), campaign => \(scope.campaign),
                                                  from_date => \(scope.from), to_date => \(scope.to), as_of => \(asOf),
                                                  include_test => \(scope.includeTest),
                                                  conversion_window => \(window)::interval, canvas => \(scope.canvas),
                                                  first_ordinal => 2)
            """
        ).map { row in
            ControlArmConversionRow(
                app: try row.decode(String.self, column: columns["app_name"]),
                campaignID: try row.campaignOrCanvas(columns),
                ordinal: Int(try row.decode(Int16.self, column: columns["ordinal"])),
                conversionEvent: try row.decode(String.self, column: columns["conversion_event"]),
                variantID: try row.decode(String?.self, column: columns["variant_id"]),
                control: try row.decode(Bool.self, column: columns["control"]),
                users: try row.decode(Int.self, column: columns["users"]),
                converters: try row.decode(Int.self, column: columns["converters"])
            )
        }
    }
}
