public import PostgresClient

/// Runs `cardinal.send_arms`, the same function psql users call, and decodes its rows.
public struct SendArmsQuery {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The users sent to per arm of every campaign in scope with a send in the range, control first.
    /// - Throws: `PostgresError`, e.g. SQLSTATE 22023 when `scope.from` is after `scope.to`.
    public func run(_ scope: ReportScope) throws -> [SendArmRow] {
        let columns = SendArmRow.sqlColumns
        return try connection.query(
            """
            select \(columns.selectList)
            from \(columns.objectName)(app => \(scope.app), campaign => \(scope.campaign), from_date => \(scope.from),
                                  to_date => \(scope.to), include_test => \(scope.includeTest))
            """
        ).map { row in
            SendArmRow(
                app: try row.decode(String.self, column: columns["app_name"]),
                campaignID: try row.decode(String.self, column: columns["campaign_id"]),
                variantID: try row.decode(String?.self, column: columns["variant_id"]),
                control: try row.decode(Bool.self, column: columns["control"]),
                users: try row.decode(Int.self, column: columns["users"])
            )
        }
    }
}
