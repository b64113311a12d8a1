import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// The fold's first step: a first login re-keys the device's own key only when the app holds an anonymous
/// event of the device, and the re-key still moves that device's folded events to the user. Times are UTC before
/// 15:00, so each lies on the Tokyo report day of the same number.
@Suite struct FoldIdentityLinksTests {
    /// Folds in a transaction of its own and returns how often it called requeue_identity_state, which re-keys
    /// old keys (one call per app that has keys to re-key).
    private func foldCountingRequeues(_ scenario: ReportScenario) throws -> Int64 {
        try scenario.connection.transaction(isolation: .repeatableRead) { connection in
            try connection.execute("set local track_functions = 'all'")
            #expect(try connection.query("select cardinal.fold_report_state()").first?.decode(Int64?.self, at: 0) != nil)
            return try connection.query(
                """
                select coalesce(sum(calls), 0)::bigint
                from pg_catalog.pg_stat_xact_user_functions
                where schemaname = 'cardinal' and funcname = 'requeue_identity_state'
                """
            ).first?.decode(Int64.self, at: 0) ?? -1
        }
    }

    /// The folded users of the app and their impression days, "user day,day; …".
    private func foldedImpressionDays(_ scenario: ReportScenario) throws -> String {
        try scenario.connection.query(
            """
            select coalesce(string_agg(u.user_key || ' ' || array_to_string(u.impression_days, ','), '; '
                                       order by u.user_key), '')
            from cardinal.report_user_state as u
            join cardinal.report_groups as g on g.group_id = u.group_id
            where g.app_id = $1
            """,
            [scenario.app.id]
        ).first?.decode(String.self, at: 0) ?? ""
    }

    @Test("First logins on devices that never sent an anonymous event re-key nothing, and are learned as merged")
    func loginsWithoutAnonymousHistoryRequeueNothing() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", device: "d1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u2", device: "d2"),
        ])
        #expect(try foldCountingRequeues(scenario) == 0)
        let links = try scenario.connection.query(
            "select string_agg(device_id || ' ' || user_id || ' ' || merged, ', ' order by device_id) "
                + "from cardinal.identity_links where app_id = $1",
            [scenario.app.id]
        ).first?.decode(String.self, at: 0)
        #expect(links == "d1 u1 true, d2 u2 true")
        #expect(try foldedImpressionDays(scenario) == "u1 \(scenario.day(10)); u2 \(scenario.day(10))")
    }

    @Test("A first login on a device with a folded anonymous event moves that event to the user who logged in")
    func loginAfterAnonymousHistoryRequeuesTheDevice() throws {
        let scenario = try ReportScenario()
        defer { scenario.drop() }
        try scenario.write([event(.impression, at: scenario.time(9, "01:00"), device: "d1")])
        #expect(try foldCountingRequeues(scenario) == 0)
        #expect(try foldedImpressionDays(scenario) == "device:d1 \(scenario.day(9))")

        // In the same fold, d2 logs in with no anonymous history: only d1's key has state to move.
        try scenario.write([
            event(.impression, at: scenario.time(10, "01:00"), user: "u1", device: "d1"),
            event(.impression, at: scenario.time(10, "02:00"), user: "u2", device: "d2"),
        ])
        #expect(try foldCountingRequeues(scenario) == 1)
        #expect(try foldedImpressionDays(scenario)
            == "u1 \(scenario.day(9)),\(scenario.day(10)); u2 \(scenario.day(10))")
        #expect(try scenario.connection.query("select count(*) from cardinal.report_fold_queue")
            .first?.decode(Int64.self, at: 0) == 0)
    }
}
