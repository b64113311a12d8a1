import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// Erasure against every report-state table that names users: the per-user state, and the users that the
/// count tables keep apart (0055, 0069, 0071, 0072, 0074), found by their `user_key` column, so that a table
/// added later is checked too.
@Suite struct ErasedUserKeyTests {
    /// How many rows of each table of the schema with a `user_key` column hold `user`, by table, for the tables
    /// that hold any.
    private static func tablesNaming(_ user: String, in scenario: ReportScenario) throws -> [String: Int64] {
        let tables = try scenario.connection.query(
            """
            select c.relname
            from pg_catalog.pg_attribute as a
            join pg_catalog.pg_class as c on c.oid = a.attrelid
            join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
            where n.nspname = 'cardinal' and a.attname = 'user_key' and c.relkind in ('r', 'p') and not a.attisdropped
            """
        ).map { try $0.decode(String.self, at: 0) }
        var naming: [String: Int64] = [:]
        for table in tables {
            let rows = try scenario.connection.query(
                "select count(*) from cardinal.\(table) where user_key = $1", [user]
            ).first!.decode(Int64.self, at: 0)
            if rows > 0 {
                naming[table] = rows
            }
        }
        return naming
    }

    @Test("An erased user is left in no report-state table, the count tables' users apart included")
    func erasedUserLeavesNoUserKey() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        var events: [Event] = []
        for user in ["u1", "u2"] {
            events += [
                // A session across report days (Tokyo midnight is 15:00 UTC): report_session_apart_users.
                event(.impression, at: scenario.time(10, "14:30"), user: user, session: "s1"),
                event(.impression, at: scenario.time(10, "15:30"), user: user, session: "s1"),
                // Control too, and a click: several arms and a control user who acts.
                event(.impression, at: scenario.time(11, "01:00"), user: user, variant: nil, control: true),
                event(.click, at: scenario.time(11, "02:00"), user: user),
                // Sends of both arms: report_arm_user_days.
                event(.send, at: scenario.time(11, "00:30"), user: user),
                event(.send, at: scenario.time(11, "00:30"), user: user, variant: nil, control: true),
                // One card dismissed twice: report_dismissal_repeat_users.
                event(.dismissal, at: scenario.time(11, "03:00"), user: user, message: "k1"),
                event(.dismissal, at: scenario.time(12, "03:00"), user: user, message: "k1"),
            ]
        }
        try scenario.write(events)
        let state = ReportStateStore(connection: scenario.connection)
        _ = try state.fold()
        let before = try Self.tablesNaming("u1", in: scenario)
        for table in ["report_user_state", "report_session_apart_users", "report_several_arm_users",
                      "report_control_acting_users", "report_arm_user_days", "report_dismissal_repeat_users"] {
            #expect(before[table] != nil, "\(table) holds no row of u1 before the erasure: \(before)")
        }

        _ = try IdentityEraser(connection: scenario.connection).erase(
            ErasureTarget(kind: .user, id: "u1"), appID: scenario.app.id
        )
        _ = try state.fold()
        #expect(try Self.tablesNaming("u1", in: scenario) == [:])
        // u2, who was not erased, is still everywhere u1 was.
        #expect(Set(try Self.tablesNaming("u2", in: scenario).keys) == Set(before.keys))
    }
}
