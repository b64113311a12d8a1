import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// `cardinal.erase_identity` on random workloads: after erasing a user or a device, every report equals
/// the reference over the raw events left, and reports, report state and rejected events equal those of a
/// second database that was given the same workload without that identity's events.
@Suite struct ErasurePropertyTests {
    private static let workloads: UInt64 = 30

    /// One of the two databases: the one that erases, or the one that never had the identity.
    private final class Side {
        let database: TestDatabase
        let connection: PostgresConnection
        let writer: EventWriter

        init(prefix: String) throws {
            database = try TestDatabase.migrated(prefix: prefix)
            connection = try database.connect()
            writer = EventWriter(connection: try database.connect())
            try connection.executeScript(
                """
                create function cardinal_test_set(anyarray) returns anyarray language sql immutable
                    as 'select array(select distinct x from unnest($1) as x order by x)';
                create function cardinal_test_sorted(anyarray) returns anyarray language sql immutable
                    as 'select array(select x from unnest($1) as x order by x)';
                """
            )
        }

        var state: ReportStateStore {
            ReportStateStore(connection: connection)
        }

        /// Creates the app with the workload's settings (drawn from `settingsSeed`, so both sides get the same),
        /// writes the batches' events that `keep` accepts and the rejections, folding after some batches.
        func load(
            _ workload: RandomWorkload, app name: String, settingsSeed: UInt64, keep: (Event) -> Bool,
            rejections: [EventRejection], receivedAt: Date, folds: inout SeededGenerator
        ) throws -> Int64 {
            var settings = SeededGenerator(seed: settingsSeed)
            let app = try AppStore(connection: connection).create(name: name, reportTimeZone: workload.timeZone)
            for campaign in RandomWorkload.campaigns {
                try connection.execute(
                    """
                    insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window,
                                                            report_time_zone)
                    values ($1, $2, $3, $4::interval, $5)
                    """,
                    [app.id, campaign, settings.pick(RandomWorkload.conversions as [String?] + [nil]),
                     settings.pick(["1 day", "3 days", "7 days"]), workload.campaignZones[campaign]]
                )
            }
            let records = rejections.map {
                RejectionRecord(appID: app.id, requestID: "r", receivedAt: receivedAt, rejection: $0)
            }
            for (position, batch) in workload.batches.enumerated() {
                _ = try writer.write(
                    events: batch.filter(keep).map { EventRecord(appID: app.id, event: $0, receivedAt: Date()) },
                    rejections: position == 0 ? records : []
                )
                if folds.chance(0.4) {
                    #expect(try state.fold() != nil)
                }
            }
            // A login merges at the fold: learn the unfolded ones, as the reference sees them.
            try learnIdentityLinks(connection)
            return app.id
        }

        /// Rows of `sql` as text, sorted.
        func rows(_ sql: String, _ parameters: [(any PostgresEncodable)?]) throws -> [String] {
            try connection.query("select r::text from (\(sql)) as r order by 1", parameters)
                .map { try $0.decode(String.self, at: 0) }
        }

        /// Rows in a report function's result and not its reference's, counted both ways.
        func differencesFromReference(_ function: String, _ arguments: String, _ parameters: [(any PostgresEncodable)?]) throws -> Int64 {
            try connection.query(
                """
                select (select count(*) from (select * from cardinal.\(function)(\(arguments))
                                              except all
                                              select * from cardinal.\(function)_reference(\(arguments))) as extra)
                     + (select count(*) from (select * from cardinal.\(function)_reference(\(arguments))
                                              except all
                                              select * from cardinal.\(function)(\(arguments))) as missing)
                """,
                parameters
            ).first?.decode(Int64.self, at: 0) ?? -1
        }

        /// The app's report state, groups and rejected events as sorted text, with each group spelt out instead
        /// of its group_id (which differs between databases) and every set of days, times and ids normalised.
        func contents(of app: String) throws -> [String] {
            try rows(
                """
                with g as (
                    select g.group_id,
                           row(g.campaign_id, g.canvas_id, g.canvas_step_id, g.variant_id, g.channel, g.platform,
                               g.sdk_version, g.app_version, g.test)::text as spelt
                    from cardinal.report_groups as g
                    join cardinal.apps as a using (app_id)
                    where a.name = $1
                )
                select 'group ' || g.spelt from g
                union all
                select concat_ws(' ', 'user', g.spelt, u.user_key, cardinal_test_set(u.impression_days),
                                 cardinal_test_set(u.click_days), cardinal_test_set(u.dismissal_days),
                                 cardinal_test_set(u.send_days), cardinal_test_set(u.control_impression_days),
                                 cardinal_test_set(u.control_send_days), u.first_impression_at, u.first_send_at,
                                 u.first_control_impression_at, u.first_control_send_at,
                                 cardinal_test_sorted(u.click_times), cardinal_test_sorted(u.dismissal_times))
                from cardinal.report_user_state as u join g using (group_id)
                union all
                select concat_ws(' ', 'day', g.spelt, c.day, c.impressions, c.clicks, c.dismissals, c.sends,
                                 c.control_impressions, c.control_sends)
                from cardinal.report_daily_counts as c join g using (group_id)
                union all
                select concat_ws(' ', 'session', g.spelt, v.user_key, v.session_id, v.day, v.impressions,
                                 cardinal_test_set(v.message_ids))
                from cardinal.report_session_state as v join g using (group_id)
                union all
                select concat_ws(' ', 'part', g.spelt, p.user_key, p.part, p.day, p.impressions, p.clicks,
                                 p.dismissals, p.sends)
                from cardinal.report_part_state as p join g using (group_id)
                union all
                select concat_ws(' ', 'conversion', c.user_key, c.conversion_name, c.test, cardinal_test_sorted(c.times))
                from cardinal.report_conversion_state as c join cardinal.apps as a using (app_id)
                where a.name = $1
                union all
                select concat_ws(' ', 'row days', row(r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id,
                                                      r.channel)::text,
                                 d.user_key, d.impression_days, d.click_days, d.dismissal_days, d.send_days)
                from cardinal.report_row_user_days as d
                join cardinal.report_rows as r using (row_id)
                join cardinal.apps as a using (app_id)
                where a.name = $1
                union all
                select concat_ws(' ', 'row pairs', row(r.campaign_id, r.canvas_id, r.canvas_step_id, r.variant_id,
                                                       r.channel)::text,
                                 p.kind, p.day, p.previous_day, p.users)
                from cardinal.report_row_day_users as p
                join cardinal.report_rows as r using (row_id)
                join cardinal.apps as a using (app_id)
                where a.name = $1
                union all
                select concat_ws(' ', 'rejected', r.code, r.raw)
                from cardinal.rejected_events as r join cardinal.apps as a using (app_id)
                where a.name = $1
                """,
                [app]
            )
        }
    }

    /// Rejected events of the workload's people: a control click whose body names `target` (the anomaly report
    /// counts it), a malformed line that names it only as a JSON string, and one of somebody else whose id
    /// starts like the target's.
    private static func rejections(naming target: ErasureTarget, other: String) -> (naming: [EventRejection], others: [EventRejection]) {
        let field = target.kind == .user ? "user_id" : "device_id"
        let click = { (id: String) in
            #"{"id":"\#(UUID().uuidString)","type":"click","channel":"content_card","campaign_id":"c0","control":true,"\#(field)":"\#(id)"}"#
        }
        return (
            [EventRejection(index: 0, id: nil, code: .controlInteraction, message: "control click", rawJSON: click(target.id)),
             EventRejection(index: 1, id: nil, code: .invalidJSON, message: "not JSON", rawJSON: #"{"\#(field)":"\#(target.id)", oops"#)],
            [EventRejection(index: 2, id: nil, code: .controlInteraction, message: "control click", rawJSON: click(other))]
        )
    }

    @Test("Erasing a user or a device leaves reports, state and rejected events as if it had never been there")
    func erasureEqualsNeverHavingExisted() throws {
        let erasing = try Side(prefix: "erasing")
        defer { erasing.database.drop() }
        let fresh = try Side(prefix: "fresh")
        defer { fresh.database.drop() }
        let baseDay = ReportDate(utcDayOf: Date()).adding(days: -60)
        let baseTime = Date(timeIntervalSince1970: Double(baseDay.daysSinceEpoch * 86_400))
        var erasedEvents = 0
        var devicesWithUsers = 0

        for seed in 4_001...(4_000 + Self.workloads) {
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: baseTime, people: "w\(seed)-")
            let events = workload.batches.flatMap { $0 }
            let users = Set(events.compactMap(\.userID)).sorted()
            let devices = Set(events.compactMap(\.deviceID)).sorted()
            let target = !users.isEmpty && (generator.chance(0.5) || devices.isEmpty)
                ? ErasureTarget(kind: .user, id: generator.pick(users))
                : ErasureTarget(kind: .device, id: generator.pick(devices))
            let names = { (event: Event) in
                target.kind == .user ? event.userID == target.id : event.deviceID == target.id
            }
            let rejected = Self.rejections(naming: target, other: target.id + "0")
            let app = "app\(seed)"
            let receivedAt = baseTime.addingTimeInterval(30 * 86_400)

            var folds = SeededGenerator(seed: seed + 100_000)
            let appID = try erasing.load(
                workload, app: app, settingsSeed: seed, keep: { _ in true }, rejections: rejected.naming + rejected.others,
                receivedAt: receivedAt, folds: &folds
            )
            _ = try fresh.load(
                workload, app: app, settingsSeed: seed, keep: { !names($0) }, rejections: rejected.others,
                receivedAt: receivedAt, folds: &folds
            )

            let dryRun = try IdentityEraser(connection: erasing.connection).erase(target, appID: appID, dryRun: true)
            let record = try IdentityEraser(connection: erasing.connection).erase(target, appID: appID)
            var realCounts = record
            realCounts.erasureID = nil
            realCounts.erasedAt = nil
            #expect(dryRun == realCounts, "workload \(seed): the dry run counts what the erasure removes")
            #expect(record.events == Int64(Set(events.filter(names).map(\.id)).count), "workload \(seed)")
            #expect(record.rejectedEvents == 2, "workload \(seed)")
            erasedEvents += Int(record.events)
            // The device's users keep their events from elsewhere: those are queued again to rebuild their state.
            let usersOfDevice = target.kind == .device ? Set(events.filter(names).compactMap(\.userID)) : []
            let kept = Set(events.filter { !names($0) && $0.userID.map(usersOfDevice.contains) == true }.map(\.id))
            #expect(record.requeuedEvents == Int64(kept.count), "workload \(seed)")
            devicesWithUsers += kept.isEmpty ? 0 : 1

            // Reports read folded state and queue alike: compare before the fold and after it.
            for folded in [false, true] {
                if folded {
                    _ = try erasing.state.fold()
                    _ = try fresh.state.fold()
                }
                let from = baseDay, to = baseDay.adding(days: 61)
                let asOf = baseTime.addingTimeInterval(70 * 86_400)
                let includeTest = generator.chance(0.5)
                let by = generator.pick([nil, "day", "platform"] as [String?])
                let unique = "select * from cardinal.unique_impressions($1, $2, $3, $4, null, $5)"
                let uniqueParameters: [(any PostgresEncodable)?] = [app, from, to, includeTest, by]
                #expect(try erasing.rows(unique, uniqueParameters) == fresh.rows(unique, uniqueParameters),
                        "workload \(seed)")
                #expect(try erasing.differencesFromReference(
                    "unique_impressions", "$1, $2, $3, $4, null, $5", uniqueParameters) == 0, "workload \(seed)")
                let anomalies = "select * from cardinal.anomalies($1, $2, $3, $4)"
                #expect(try erasing.rows(anomalies, [app, from, to, includeTest])
                            == fresh.rows(anomalies, [app, from, to, includeTest]), "workload \(seed)")
                #expect(try erasing.differencesFromReference(
                    "anomalies", "$1, $2, $3, $4", [app, from, to, includeTest]) == 0, "workload \(seed)")
                let control = "select * from cardinal.control_arms($1, null, $2, $3, $4, null, null, $5)"
                let controlParameters: [(any PostgresEncodable)?] = [app, from, to, asOf, includeTest]
                #expect(try erasing.rows(control, controlParameters) == fresh.rows(control, controlParameters),
                        "workload \(seed)")
                #expect(try erasing.differencesFromReference(
                    "control_arms", "$1, null, $2, $3, $4, null, null, $5", controlParameters) == 0,
                        "workload \(seed)")
            }
            let contents = try erasing.contents(of: app)
            #expect(contents == (try fresh.contents(of: app)), "workload \(seed)")
            #expect(!contents.isEmpty)
            #expect(!contents.contains { $0.contains(target.id + " ") || $0.contains("\"" + target.id + "\"") },
                    "workload \(seed): nothing names the erased identity")
        }
        // The workloads must have erased something, and some devices shared with users, or equality proves little.
        #expect(erasedEvents > Int(Self.workloads) * 3)
        #expect(devicesWithUsers > 0)
    }
}
