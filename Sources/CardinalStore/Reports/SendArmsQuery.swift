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
        try connection.query(
            """
            select app_name, campaign_id, variant_id, control, users
            from cardinal.send_arms(app => $1, campaign => $2, from_date => $3, to_date => $4, include_test => $5)
            """,
            [scope.app, scope.campaign, scope.from, scope.to, scope.includeTest]
        ).map { row in
            SendArmRow(
                app: try row.decode(String.self, at: 0),
                campaignID: try row.decode(String.self, at: 1),
                variantID: try row.decode(String?.self, at: 2),
                control: try row.decode(Bool.self, at: 3),
                users: try row.decode(Int.self, at: 4)
            )
        }
    }
}
