import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Synchronization
import Testing
import TestSupport

/// The state-backed report functions against the reference functions over raw events, on random
/// workloads: every row and field of both must be equal.
@Suite struct ReportStatePropertyTests {
    /// The workloads `make test` compares; `make property` runs more (CARDINAL_PROPERTY_WORKLOADS).
    private static let defaultWorkloads: UInt64 = 140

    /// A migrated database and a writer, shared by the workloads of one test (each has an app of its own).
    private final class Bench {
        let database: TestDatabase
        let connection: PostgresConnection
        let writer: EventWriter
        let baseDay = ReportDate(utcDayOf: Date()).adding(days: -60)

        init() throws {
            database = try TestDatabase.migrated(prefix: "state")
            connection = try database.connect()
            writer = EventWriter(connection: try database.connect())
        }

        /// The devices with anonymous events merged into a new user, and those of them shared by two users.
        func merges() throws -> (merged: Int64, shared: Int64) {
            let row = try connection.query(
                """
                select count(*),
                       count(*) filter (where (select count(distinct e.user_id) from cardinal.events as e
                                               where e.app_id = l.app_id and e.device_id = l.device_id) > 1)
                from cardinal.identity_links as l
                where l.merged
                  and exists (select from cardinal.events as e
                              where e.app_id = l.app_id and e.device_id = l.device_id and e.user_id is null)
                """
            ).first
            return (try row?.decode(Int64.self, at: 0) ?? 0, try row?.decode(Int64.self, at: 1) ?? 0)
        }

        var baseTime: Date {
            Date(timeIntervalSince1970: Double(baseDay.daysSinceEpoch * 86_400))
        }

        var state: ReportStateStore {
            ReportStateStore(connection: connection)
        }

        /// Creates the workload's app and settings and writes its batches through the event writer, folding the
        /// queue after some of them, so that reports read a mix of folded state and queued events, and learns the
        /// identity links of the events left unfolded. Without `foldWhileLoading` every event stays pending;
        /// without `learnLogins` the logins among the unfolded events stay pending too, for the reports to merge
        /// (the generator is drawn from alike either way, so the workload stays the same).
        func load(
            _ workload: RandomWorkload, app name: String, generator: inout SeededGenerator,
            foldWhileLoading: Bool = true, learnLogins: Bool = true
        ) throws -> Int64 {
            let app = try AppStore(connection: connection).create(name: name, reportTimeZone: workload.timeZone)
            for campaign in RandomWorkload.campaigns {
                let primary = generator.pick(RandomWorkload.conversions as [String?] + [nil])
                try connection.execute(
                    """
                    insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window,
                                                            report_time_zone)
                    values ($1, $2, $3, $4::interval, $5)
                    """,
                    [app.id, campaign, primary, generator.pick(["1 day", "3 days", "7 days"]),
                     workload.campaignZones[campaign]]
                )
                // Every other conversion name as a further conversion event (taking nothing from the generator,
                // so the workloads stay those the other comparisons were written against).
                for (offset, name) in RandomWorkload.conversions.filter({ $0 != primary }).enumerated() {
                    try connection.execute(
                        "insert into cardinal.campaign_conversion_events values ($1, $2, $3, $4)",
                        [app.id, campaign, Int16(offset + 2), name]
                    )
                }
            }
            // The workloads' canvas, keyed by its id as 0034 keys a canvas's settings: a primary and a further
            // conversion event and a window of its own (fixed, taking nothing from the generator).
            try connection.execute(
                """
                insert into cardinal.campaign_settings (app_id, campaign_id, conversion_event, conversion_window)
                values ($1, $2, 'purchase', interval '2 days')
                """,
                [app.id, RandomWorkload.canvas]
            )
            try connection.execute(
                "insert into cardinal.campaign_conversion_events values ($1, $2, 2, 'signup')", [app.id, RandomWorkload.canvas]
            )
            for batch in workload.batches {
                _ = try writer.write(
                    events: batch.map { EventRecord(appID: app.id, event: $0, receivedAt: Date()) }, rejections: []
                )
                if generator.chance(0.4) && foldWhileLoading {
                    #expect(try state.fold() != nil)
                }
            }
            // A login merges at the fold: learn the unfolded ones, so that the comparisons of the reports
            // that read folded state and unfolded events are not all about pending logins (those are compared
            // in pendingLoginsEqualReference).
            if learnLogins {
                try learnIdentityLinks(connection)
            }
            return app.id
        }

        /// Rows in one function's result and not the other's, counted both ways with their multiplicity.
        func differences(_ function: String, _ arguments: String, _ parameters: [(any PostgresEncodable)?]) throws -> (Int64, Int64) {
            try differences(
                state: "cardinal.\(function)(\(arguments))",
                reference: "cardinal.\(function)_reference(\(arguments))",
                parameters
            )
        }

        /// Rows in one result and not the other's, counted both ways with their multiplicity, and the rows of
        /// the reference. Each side is computed once (materialized), for they are most of the test's time.
        func differences(state: String, reference: String, _ parameters: [(any PostgresEncodable)?]) throws -> (Int64, Int64) {
            let row = try connection.query(
                """
                with from_state as materialized (select * from \(state)),
                     from_reference as materialized (select * from \(reference))
                select (select count(*) from (select * from from_state except all select * from from_reference) as extra)
                     + (select count(*) from (select * from from_reference except all select * from from_state) as missing),
                       (select count(*) from from_reference)
                """,
                parameters
            ).first
            return (try row?.decode(Int64.self, at: 0) ?? -1, try row?.decode(Int64.self, at: 1) ?? -1)
        }

        func uniqueImpressions(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            return try differences(
                "unique_impressions", "$1, $2, $3, $4, $5, $6",
                [app, baseDay.adding(days: first), baseDay.adding(days: last), generator.chance(0.3),
                 generator.pick([nil, nil] + RandomWorkload.campaigns),
                 generator.pick([nil, "day", "platform", "sdk_version", "app_version", "button_id", "placement_id",
                                 "message_id"])]
            )
        }

        func anomalies(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let includeTest = generator.chance(0.3)
            let campaign = generator.pick([nil, nil] + RandomWorkload.campaigns)
            // One canvas in a third of the unfiltered comparisons, chosen from what was drawn, so that the
            // generator's sequence (and every later comparison) stays as it was.
            let canvas: String? = campaign == nil && first % 3 == 0 ? "canvas" : nil
            return try differences(
                "anomalies", "$1, $2, $3, $4, $5, $6",
                [app, baseDay.adding(days: first), baseDay.adding(days: last), includeTest, campaign, canvas]
            )
        }

        /// The kinds the reference finds over the workload's whole 60 days, `canvas ` before those of canvas steps.
        func kinds(app: String) throws -> Set<String> {
            Set(try connection.query(
                """
                select distinct case when canvas_step_id is null then '' else 'canvas ' end || kind || ':' || severity
                from cardinal.anomalies_reference($1, $2, $3)
                """,
                [app, baseDay, baseDay.adding(days: 60)]
            ).map { try $0.decode(String.self, at: 0) })
        }

        func controlArms(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let asOf = baseTime.addingTimeInterval(Double(Int.random(in: 10...70, using: &generator) * 86_400))
            return try differences(
                "control_arms", "$1, $2, $3, $4, $5, $6, $7::interval, $8",
                [app, generator.pick([nil, nil] + RandomWorkload.campaigns), baseDay.adding(days: first),
                 baseDay.adding(days: last), asOf, generator.pick([nil, nil, "purchase"]),
                 generator.pick([nil, nil, "2 days"]), generator.chance(0.3)]
            )
        }

        /// send_arms from the day pairs against the same read from the per-user state (0053's body, exact
        /// by SendArmsTests), pending events included.
        func sendArms(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let arguments = "$1, $2, $3, $4, false"
            return try differences(
                state: "cardinal.send_arms(\(arguments))",
                reference: "cardinal.send_arms_from_user_state(\(arguments))",
                [app, generator.pick([nil, nil] + RandomWorkload.campaigns), baseDay.adding(days: first),
                 baseDay.adding(days: last)]
            )
        }

        /// The exposure findings without test events from the counts against the same read from the per-user state
        /// (exact by the comparisons with the reference), pending events included.
        func anomaliesFromCounts(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let campaign = generator.pick([nil, nil] + RandomWorkload.campaigns)
            let canvas: String? = campaign == nil && first % 3 == 0 ? RandomWorkload.canvas : nil
            return try differences(
                state: "cardinal.exposure_anomalies_from_counts($1, $2, $3, $4, $5)",
                reference: "cardinal.exposure_anomalies_from_user_state($1, $2, $3, false, $4, $5)",
                [app, baseDay.adding(days: first), baseDay.adding(days: last), campaign, canvas]
            )
        }

        func campaignConversions(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            return try differences(
                "campaign_conversions", "$1, $2, $3, $4, $5",
                [app, baseDay.adding(days: first), baseDay.adding(days: last),
                 generator.pick([nil, nil] + RandomWorkload.campaigns), generator.chance(0.3)]
            )
        }

        /// control_arms of the workloads' canvas, with and without overrides.
        func canvasControlArms(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let asOf = baseTime.addingTimeInterval(Double(Int.random(in: 10...70, using: &generator) * 86_400))
            return try differences(
                "control_arms", "$1, null, $2, $3, $4, $5, $6::interval, $7, $8",
                [app, baseDay.adding(days: first), baseDay.adding(days: last), asOf,
                 generator.pick([nil, nil, "signup"]), generator.pick([nil, nil, "1 day"]), generator.chance(0.3),
                 RandomWorkload.canvas]
            )
        }

        /// control_arm_covariates (CUPED's sums) against its reference, for the campaigns or the workloads' canvas,
        /// with and without overrides of the conversion event, both windows and test events.
        func controlArmCovariates(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let asOf = baseTime.addingTimeInterval(Double(Int.random(in: 10...70, using: &generator) * 86_400))
            let canvas: String? = generator.chance(0.3) ? RandomWorkload.canvas : nil
            return try differences(
                "control_arm_covariates", "$1, $2, $3, $4, $5, $6, $7::interval, $8, $9, $10::interval",
                [app, canvas == nil ? generator.pick([nil, nil] + RandomWorkload.campaigns) : nil,
                 baseDay.adding(days: first), baseDay.adding(days: last), asOf,
                 generator.pick([nil, nil, "purchase"]), generator.pick([nil, nil, "2 days"]), generator.chance(0.3),
                 canvas, generator.pick([nil, nil, "1 day", "30 days"])]
            )
        }

        /// control_arm_conversions of the workloads' canvas from state against the same over raw events.
        func canvasControlArmConversions(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let asOf = baseTime.addingTimeInterval(Double(Int.random(in: 10...70, using: &generator) * 86_400))
            let call = { (reference: Bool) in
                "cardinal.control_arm_conversions($1, null, $2, $3, $4, $5, \(reference), $6::interval, $7)"
            }
            let row = try connection.query(
                """
                select (select count(*) from (
                            select * from \(call(false)) except all select * from \(call(true))) as extra)
                     + (select count(*) from (
                            select * from \(call(true)) except all select * from \(call(false))) as missing),
                       (select count(*) from \(call(true)))
                """,
                [app, baseDay.adding(days: first), baseDay.adding(days: last), asOf, generator.chance(0.3),
                 generator.pick([nil, nil, "1 day"]), RandomWorkload.canvas]
            ).first
            return (try row?.decode(Int64.self, at: 0) ?? -1, try row?.decode(Int64.self, at: 1) ?? -1)
        }

        /// control_arm_conversions from state against the same over raw events (its `reference` argument).
        func controlArmConversions(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = Int.random(in: first..<61, using: &generator)
            let asOf = baseTime.addingTimeInterval(Double(Int.random(in: 10...70, using: &generator) * 86_400))
            let arguments = "$1, $2, $3, $4, $5, $6"
            return try differences(
                state: "cardinal.control_arm_conversions(\(arguments), false)",
                reference: "cardinal.control_arm_conversions(\(arguments), true)",
                [app, generator.pick([nil, nil] + RandomWorkload.campaigns), baseDay.adding(days: first),
                 baseDay.adding(days: last), asOf, generator.chance(0.3)]
            )
        }

        /// control_arm_days of one campaign from state against the same over raw events (its `reference`
        /// argument), over at most three days: the reference runs control_arms_reference once per day, 1–2 s each
        /// on a workload.
        func controlArmDays(app: String, generator: inout SeededGenerator) throws -> (Int64, Int64) {
            let first = Int.random(in: 0..<60, using: &generator)
            let last = min(60, first + Int.random(in: 0..<3, using: &generator))
            let asOf = baseTime.addingTimeInterval(Double(Int.random(in: 10...70, using: &generator) * 86_400))
            let arguments = "$1, $2, $3, $4, $5, false"
            return try differences(
                state: "cardinal.control_arm_days(\(arguments), false)",
                reference: "cardinal.control_arm_days(\(arguments), true)",
                [app, generator.pick(RandomWorkload.campaigns), baseDay.adding(days: first), baseDay.adding(days: last),
                 asOf]
            )
        }

        /// Every report against its reference (and send_arms and the exposure findings from counts against the
        /// same reads of the per-user state) once, with arguments drawn from `generator`: the comparisons that
        /// differ, and how many reference rows were compared.
        func compareEveryReport(app: String, generator: inout SeededGenerator) throws -> (differing: [String], rows: Int64) {
            let comparisons: [(String, (inout SeededGenerator) throws -> (Int64, Int64))] = [
                ("unique_impressions", { try self.uniqueImpressions(app: app, generator: &$0) }),
                ("control_arms", { try self.controlArms(app: app, generator: &$0) }),
                ("anomalies", { try self.anomalies(app: app, generator: &$0) }),
                ("campaign_conversions", { try self.campaignConversions(app: app, generator: &$0) }),
                ("control_arm_conversions", { try self.controlArmConversions(app: app, generator: &$0) }),
                ("control_arms of the canvas", { try self.canvasControlArms(app: app, generator: &$0) }),
                ("control_arm_conversions of the canvas",
                 { try self.canvasControlArmConversions(app: app, generator: &$0) }),
                ("send_arms", { try self.sendArms(app: app, generator: &$0) }),
                ("anomalies from counts", { try self.anomaliesFromCounts(app: app, generator: &$0) }),
            ]
            var differing: [String] = []
            var rows: Int64 = 0
            for (name, compare) in comparisons {
                for _ in 0..<2 {
                    let (differences, compared) = try compare(&generator)
                    if differences != 0 {
                        differing.append(name)
                    }
                    rows += compared
                }
            }
            return (differing, rows)
        }

        /// The app's pending logins that change a link (pending_identity_links), and of those the ones that
        /// re-key folded state: the key the device's anonymous events counted as (its own, or a previous user's)
        /// changes, and that key has state.
        func pendingLogins(app appID: Int64) throws -> (links: Int64, overFoldedState: Int64) {
            let row = try connection.query(
                """
                select count(*),
                       count(*) filter (
                           where p.previous_key <> case when p.merged then p.user_id else 'device:' || p.device_id end
                             and (exists (select from cardinal.report_user_state as u
                                          join cardinal.report_groups as g on g.group_id = u.group_id
                                          where g.app_id = p.app_id and u.user_key = p.previous_key)
                                  or exists (select from cardinal.report_conversion_state as c
                                             where c.app_id = p.app_id and c.user_key = p.previous_key)))
                from cardinal.pending_identity_links() as p
                where p.app_id = $1
                """,
                [appID]
            ).first
            return (try row?.decode(Int64.self, at: 0) ?? -1, try row?.decode(Int64.self, at: 1) ?? -1)
        }

        /// The app's report state as text, in a fixed order, with each set of days, times and message ids
        /// sorted and without repeats (the fold may append them in any order, and repeat a day).
        func state(of appID: Int64) throws -> [String] {
            try connection.query(
                """
                select format('%s %s %s %s %s %s %s %s %s %s %s %s %s %s %s', g, u.user_key,
                              cardinal_test_set(u.impression_days), cardinal_test_set(u.click_days),
                              cardinal_test_set(u.dismissal_days), cardinal_test_set(u.send_days),
                              cardinal_test_set(u.control_impression_days), cardinal_test_set(u.control_send_days),
                              u.first_impression_at, u.first_send_at, u.first_control_impression_at,
                              u.first_control_send_at, cardinal_test_sorted(u.click_times),
                              cardinal_test_sorted(u.dismissal_times), '')
                from cardinal.report_user_state as u
                join cardinal.report_groups as g using (group_id)
                where g.app_id = $1
                union all
                select format('%s %s', g, c) from cardinal.report_daily_counts as c
                join cardinal.report_groups as g using (group_id)
                where g.app_id = $1
                union all
                select format('%s %s %s %s %s %s', g, v.user_key, v.session_id, v.day, v.impressions,
                              cardinal_test_set(v.message_ids))
                from cardinal.report_session_state as v
                join cardinal.report_groups as g using (group_id)
                where g.app_id = $1
                union all
                select format('%s %s %s %s %s', g, d.user_key, d.message_id, d.day, d.dismissals)
                from cardinal.report_dismissal_state as d
                join cardinal.report_groups as g using (group_id)
                where g.app_id = $1
                union all
                select format('%s %s', g, p) from cardinal.report_part_state as p
                join cardinal.report_groups as g using (group_id)
                where g.app_id = $1
                union all
                select format('%s %s %s', g, p.user_key, cardinal_test_sorted(p.times))
                from cardinal.report_push_send_state as p
                join cardinal.report_groups as g using (group_id)
                where g.app_id = $1
                union all
                select format('%s %s %s %s', c.user_key, c.conversion_name, c.test, cardinal_test_sorted(c.times))
                from cardinal.report_conversion_state as c
                where c.app_id = $1
                union all
                select format('%s %s %s %s', v.user_key, v.conversion_name, v.test,
                              cardinal_test_sorted(array(select format('%s %s %s', t, a, c)
                                                         from unnest(v.times, v.amounts, v.currencies) as z (t, a, c))))
                from cardinal.report_conversion_value_state as v
                where v.app_id = $1
                union all
                select format('%s %s', r, d) from cardinal.report_row_user_days as d
                join cardinal.report_rows as r using (row_id)
                where r.app_id = $1
                union all
                select format('%s %s', r, p) from cardinal.report_row_day_users as p
                join cardinal.report_rows as r using (row_id)
                where r.app_id = $1
                union all
                select format('%s', x) from cardinal.report_control_exposures as x
                where x.app_id = $1
                union all
                select format('%s', d) from cardinal.report_control_exposure_days as d
                where d.app_id = $1
                union all
                select format('%s', d) from cardinal.report_control_goal_days as d
                where d.app_id = $1
                union all
                select format('%s', d) from cardinal.report_arm_user_days as d
                where d.app_id = $1
                union all
                select format('%s', d) from cardinal.report_arm_day_users as d
                where d.app_id = $1
                order by 1
                """,
                [appID]
            ).map { try $0.decode(String.self, at: 0) }
        }

        /// The counts the state's triggers keep, each a table whose view `<table>_of_rows` computes it from the
        /// rows, with the condition that selects an app's rows: control counts, further goal counts
        ///, send arm days and pairs, the anomalies' finding and source pairs and users of several
        /// arms, interaction pairs, interaction counts and control users who act, session counts,
        /// session pairs, users with a session across days and step day counts, and dismissal pairs,
        /// dismissal day counts and users who repeat a card.
        private static let keptCounts: [(table: String, appRows: String)] = {
            let byApp = "app_id in (select app_id from app)"
            let byFinding = "finding_id in (select finding_id from findings)"
            return [
                ("report_control_exposure_days", byApp), ("report_control_goal_days", byApp),
                ("report_arm_user_days", byApp), ("report_arm_day_users", byApp),
                ("report_finding_day_users", byFinding), ("report_source_day_users", byApp),
                ("report_several_arm_users", byApp), ("report_interaction_day_users", byFinding),
                ("report_interaction_day_events", byFinding), ("report_control_acting_users", byApp),
                ("report_session_units", byFinding), ("report_session_day_users", byFinding),
                ("report_session_apart_users", byFinding), ("report_step_daily_counts", byApp),
                ("report_dismissal_day_users", byFinding), ("report_dismissal_day_counts", byFinding),
                ("report_dismissal_repeat_users", byFinding),
            ]
        }()

        /// How many rows of the app's kept counts (``keptCounts``) differ from what its rows make, either way.
        /// Each side is a CTE read twice, so PostgreSQL computes it once (a view computed per comparison made
        /// the property suite a third slower).
        func stateCountsDifferingFromRows(app name: String) throws -> Int64 {
            let sides = Self.keptCounts.enumerated().map { index, count in
                """
                kept_\(index) as (select * from cardinal.\(count.table) where \(count.appRows)),
                made_\(index) as (select * from cardinal.\(count.table)_of_rows where \(count.appRows))
                """
            }
            let differences = Self.keptCounts.indices.map { index in
                """
                (select count(*) from (table kept_\(index) except table made_\(index)) as extra)
                + (select count(*) from (table made_\(index) except table kept_\(index)) as missing)
                """
            }
            return try connection.query(
                """
                with app as (select app_id from cardinal.apps where name = $1),
                findings as (select finding_id from cardinal.report_findings where app_id in (select app_id from app)),
                \(sides.joined(separator: ",\n"))
                select \(differences.joined(separator: "\n+ "))
                """,
                [name]
            ).first!.decode(Int64.self, at: 0)
        }

        /// Helpers of ``state(of:)`` in the test database: an array sorted, with and without repeats.
        func createNormalisers() throws {
            try connection.executeScript(
                """
                create function cardinal_test_set(anyarray) returns anyarray language sql immutable
                    as 'select array(select distinct x from unnest($1) as x order by x)';
                create function cardinal_test_sorted(anyarray) returns anyarray language sql immutable
                    as 'select array(select x from unnest($1) as x order by x)';
                """
            )
        }
    }

    /// The workloads are dealt to this many test cases, which run in parallel, each in a database of its own:
    /// the comparisons are most of `make test`'s time, and one long case would leave a core idle at the end.
    private static let shards: UInt64 = 2

    /// How many workloads of a shard share one database before it is dropped for a fresh one.
    private static let workloadsPerDatabase = 25

    /// The kinds the reference found and how many shards have finished: a kind must occur in some workload, not
    /// in each shard's, so the last shard to finish checks them all.
    private static let kindsFound = Mutex<(finishedShards: UInt64, kinds: Set<String>)>((0, []))

    @Test(
        "On hundreds of random workloads every report row from state equals the reference over raw events",
        arguments: 0..<shards
    )
    func stateEqualsReference(shard: UInt64) throws {
        let count = try TestEnvironment.propertyWorkloads(default: Self.defaultWorkloads)
        let seeds = Array(stride(from: 1 + shard, through: count, by: Int(Self.shards)))
        let workloads = UInt64(seeds.count)
        var bench = try Bench()
        defer { bench.database.drop() }
        var merges: (merged: Int64, shared: Int64) = (0, 0)
        var compared: Int64 = 0
        var kinds: Set<String> = []
        var conversionRows: Int64 = 0
        var canvasRows: Int64 = 0
        var sendArmRows: Int64 = 0
        var covariateRows: Int64 = 0
        var covariateRowsWithX: Int64 = 0
        var findingRows: Int64 = 0
        var controlActingUsers: Int64 = 0
        var usersWithSessionsAcrossDays: Int64 = 0
        var usersRepeatingACard: Int64 = 0
        for (index, seed) in seeds.enumerated() {
            // A fresh database every batch of workloads: a report's cost grows with the tables it reads, so
            // one database for all of make property's workloads made each later workload slower than the last
            // (4 workloads a minute at 300, against 13 at 150).
            if index > 0 && index % Self.workloadsPerDatabase == 0 {
                let batch = try bench.merges()
                merges = (merges.merged + batch.merged, merges.shared + batch.shared)
                bench.database.drop()
                bench = try Bench()
            }
            // make property runs for an hour or more; a line every 50 workloads shows how far it is.
            if index > 0 && index % 50 == 0 {
                FileHandle.standardError.write(Data(
                    "property: shard \(shard): \(index) of \(workloads) workloads compared, \(compared) rows\n".utf8))
            }
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "w\(seed)-")
            let app = "app\(seed)"
            _ = try bench.load(workload, app: app, generator: &generator)
            for _ in 0..<3 {
                let (differences, rows) = try bench.uniqueImpressions(app: app, generator: &generator)
                #expect(differences == 0, "unique_impressions differs on workload \(seed)")
                compared += rows
            }
            for _ in 0..<2 {
                let (differences, rows) = try bench.controlArms(app: app, generator: &generator)
                #expect(differences == 0, "control_arms differs on workload \(seed)")
                compared += rows
            }
            for _ in 0..<2 {
                let (differences, rows) = try bench.anomalies(app: app, generator: &generator)
                #expect(differences == 0, "anomalies differs on workload \(seed)")
                compared += rows
            }
            // Drawn from a generator of their own, so the workloads and the other comparisons stay as they were.
            var conversionsGenerator = SeededGenerator(seed: seed &+ 500_000)
            for _ in 0..<2 {
                let (differences, rows) = try bench.campaignConversions(app: app, generator: &conversionsGenerator)
                #expect(differences == 0, "campaign_conversions differs on workload \(seed)")
                conversionRows += rows
                let (armDifferences, armRows) = try bench.controlArmConversions(app: app, generator: &conversionsGenerator)
                #expect(armDifferences == 0, "control_arm_conversions differs on workload \(seed)")
                conversionRows += armRows
            }
            var canvasGenerator = SeededGenerator(seed: seed &+ 700_000)
            for _ in 0..<2 {
                let (differences, rows) = try bench.canvasControlArms(app: app, generator: &canvasGenerator)
                #expect(differences == 0, "control_arms of the canvas differs on workload \(seed)")
                canvasRows += rows
                let (armDifferences, armRows) = try bench.canvasControlArmConversions(
                    app: app, generator: &canvasGenerator
                )
                #expect(armDifferences == 0, "control_arm_conversions of the canvas differs on workload \(seed)")
                canvasRows += armRows
            }
            var sendArmsGenerator = SeededGenerator(seed: seed &+ 900_000)
            for _ in 0..<2 {
                let (differences, rows) = try bench.sendArms(app: app, generator: &sendArmsGenerator)
                #expect(differences == 0, "send_arms differs on workload \(seed)")
                sendArmRows += rows
            }
            // control_arm_days' reference costs a control_arms_reference per day: in every 20th workload only
            // (7 of make test's, 50 of make property's), where four comparisons per workload took the suite past
            // half an hour.
            if seed % 20 == 1 {
                var daysGenerator = SeededGenerator(seed: seed &+ 1_500_000)
                let (differences, rows) = try bench.controlArmDays(app: app, generator: &daysGenerator)
                #expect(differences == 0, "control_arm_days differs on workload \(seed)")
                compared += rows
            }
            // control_arm_covariates' reference reads every conversion of the raw events, 3–4 s a call: in a quarter
            // of each shard's workloads (seeds 8k and 8k + 1), where two calls in each took make test past 20 minutes.
            var covariatesGenerator = SeededGenerator(seed: seed &+ 1_300_000)
            for _ in 0..<(seed % 8 < 2 ? 2 : 0) {
                let (differences, rows) = try bench.controlArmCovariates(app: app, generator: &covariatesGenerator)
                #expect(differences == 0, "control_arm_covariates differs on workload \(seed)")
                covariateRows += rows
            }
            covariateRowsWithX += try bench.connection.query(
                "select count(*) from cardinal.control_arm_covariates($1, null, $2, $3) where sum_x > 0",
                [app, bench.baseDay, bench.baseDay.adding(days: 60)]
            ).first!.decode(Int64.self, at: 0)
            var findingsGenerator = SeededGenerator(seed: seed &+ 1_100_000)
            for _ in 0..<2 {
                let (differences, rows) = try bench.anomaliesFromCounts(app: app, generator: &findingsGenerator)
                #expect(differences == 0, "anomalies from counts differs on workload \(seed)")
                findingRows += rows
            }
            kinds.formUnion(try bench.kinds(app: app))
            // As cardinald would by now: the next workload's reports then read only its own queued events.
            _ = try bench.state.fold()
            #expect(try bench.stateCountsDifferingFromRows(app: app) == 0, "state counts, workload \(seed)")
            controlActingUsers += try bench.connection.query(
                """
                select count(*) from cardinal.report_control_acting_users
                where app_id = (select app_id from cardinal.apps where name = $1)
                """,
                [app]
            ).first!.decode(Int64.self, at: 0)
            usersWithSessionsAcrossDays += try bench.connection.query(
                """
                select count(*) from cardinal.report_session_apart_users
                where finding_id in (
                    select finding_id from cardinal.report_findings
                    where app_id = (select app_id from cardinal.apps where name = $1))
                """,
                [app]
            ).first!.decode(Int64.self, at: 0)
            usersRepeatingACard += try bench.connection.query(
                """
                select count(*) from cardinal.report_dismissal_repeat_users
                where finding_id in (
                    select finding_id from cardinal.report_findings
                    where app_id = (select app_id from cardinal.apps where name = $1))
                """,
                [app]
            ).first!.decode(Int64.self, at: 0)
        }
        // The comparisons must have had rows to compare, or equality proves nothing.
        #expect(compared > Int64(workloads) * 5)
        #expect(conversionRows > Int64(workloads))
        #expect(canvasRows > Int64(workloads))
        #expect(sendArmRows > Int64(workloads))
        // Nor without arms whose users converted before exposure, the covariate CUPED adjusts by.
        #expect(covariateRows > Int64(workloads) / 4)
        #expect(covariateRowsWithX > Int64(workloads) / 4, "\(covariateRowsWithX) arms with a covariate")
        #expect(findingRows > Int64(workloads))
        // Nor without users exposed to control who click or dismiss, whom the interaction counts leave to the
        // report.
        #expect(controlActingUsers > Int64(workloads), "\(controlActingUsers) control users who act")
        // Nor without sessions across report days, which the session counts leave to the report.
        #expect(usersWithSessionsAcrossDays > Int64(workloads), "\(usersWithSessionsAcrossDays) users with sessions across days")
        // Nor without users who dismiss a card twice, whom the dismissal counts leave to the report; a workload
        // has one in about 15 % of the seeds.
        #expect(usersRepeatingACard > 2, "\(usersRepeatingACard) users who repeat a card")
        // Nor without merges: devices with anonymous events merged into a new user, some shared by two users.
        let lastBatch = try bench.merges()
        merges = (merges.merged + lastBatch.merged, merges.shared + lastBatch.shared)
        #expect(merges.merged > Int64(workloads) / 4)
        #expect(merges.shared > Int64(workloads) / 10)
        let (finishedShards, allKinds) = Self.kindsFound.withLock { found in
            found.finishedShards += 1
            found.kinds.formUnion(kinds)
            return found
        }
        guard finishedShards == Self.shards else { return }
        // The logging kinds must have occurred in the workloads, or their equality proves nothing.
        for kind in ["repeated_impressions:warning", "control_impressions_missing:info", "push_opens_missing:critical",
                     "logging_stopped:warning", "repeated_dismissals:warning"] {
            #expect(allKinds.contains(kind), "no workload raised \(kind)")
        }
        // Nor without findings of canvas steps, which the state and the reference must key alike.
        for kind in ["canvas click_without_impression:critical", "canvas users_in_several_arms:critical"] {
            #expect(allKinds.contains(kind), "no workload raised \(kind)")
        }
    }

    @Test(
        "Before the fold, with logins among the pending events, every report equals the reference, and after it",
        arguments: 0..<shards
    )
    func pendingLoginsEqualReference(shard: UInt64) throws {
        // A quarter of the main comparison's workloads: each compares every report twice over.
        let count = max(2 * Self.shards, try TestEnvironment.propertyWorkloads(default: Self.defaultWorkloads) / 4)
        var bench = try Bench()
        defer { bench.database.drop() }
        var compared: Int64 = 0
        var pendingLinks: Int64 = 0
        var pendingLinksOverFoldedState: Int64 = 0
        var exactWorkloads: UInt64 = 0
        for (index, seed) in stride(from: 6_001 + shard, through: 6_000 + count, by: Int(Self.shards)).enumerated() {
            if index > 0 && index % Self.workloadsPerDatabase == 0 {
                bench.database.drop()
                bench = try Bench()
            }
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "w\(seed)-")
            let app = "app\(seed)"
            // Every other workload of a shard wholly pending; the others folded after some batches, so that a
            // login can be pending while the device's anonymous events (or the previous user's) are folded.
            let foldWhileLoading = (seed / 2) % 2 == 0
            let appID = try bench.load(
                workload, app: app, generator: &generator, foldWhileLoading: foldWhileLoading, learnLogins: false
            )
            let logins = try bench.pendingLogins(app: appID)
            pendingLinks += logins.links
            pendingLinksOverFoldedState += logins.overFoldedState
            let label = "workload \(seed) (\(foldWhileLoading ? "partly folded" : "all pending"), "
                + "\(logins.links) pending logins, \(logins.overFoldedState) over folded state)"

            let arguments = SeededGenerator(seed: seed &+ 1_300_000)
            var beforeArguments = arguments
            let before = try bench.compareEveryReport(app: app, generator: &beforeArguments)
            if logins.overFoldedState > 0 {
                // Not done yet: what a pending login re-keys of the folded state moves at the fold, not before
                // (docs/report-state.md, "Identity merge"). Such a workload may still compare equal, when no
                // report range or row meets the re-keyed rows.
                withKnownIssue("a pending login re-keys folded state only at the fold", isIntermittent: true) {
                    #expect(before.differing.isEmpty, "before the fold, \(label): \(before.differing)")
                }
            } else {
                #expect(before.differing.isEmpty, "before the fold, \(label): \(before.differing)")
                exactWorkloads += 1
            }
            compared += before.rows

            _ = try bench.state.fold()
            var afterArguments = arguments
            let after = try bench.compareEveryReport(app: app, generator: &afterArguments)
            #expect(after.differing.isEmpty, "after the fold, \(label): \(after.differing)")
            #expect(try bench.stateCountsDifferingFromRows(app: app) == 0, "state counts, \(label)")
        }
        // The comparisons must have had rows, and the workloads pending logins, some over folded state; and most
        // workloads must have been held to equality before the fold.
        #expect(compared > Int64(count / Self.shards) * 5)
        #expect(pendingLinks > Int64(count / Self.shards) / 2, "\(pendingLinks) pending logins")
        #expect(pendingLinksOverFoldedState > 0, "\(pendingLinksOverFoldedState) pending logins over folded state")
        #expect(exactWorkloads > count / Self.shards / 2, "\(exactWorkloads) workloads compared before the fold")
    }

    @Test("Time zones changed after ingest give the same reports as a fresh computation")
    func settingsChangedAfterIngest() throws {
        let bench = try Bench()
        defer { bench.database.drop() }
        for seed in 1_001...1_040 as ClosedRange<UInt64> {
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "w\(seed)-")
            let app = "app\(seed)"
            let appID = try bench.load(workload, app: app, generator: &generator)
            let campaign = generator.pick(RandomWorkload.campaigns)
            try bench.connection.execute(
                "update cardinal.campaign_settings set report_time_zone = $3 where app_id = $1 and campaign_id = $2",
                [appID, campaign, generator.pick(RandomWorkload.zones as [String?] + [nil])]
            )
            try bench.connection.execute(
                "update cardinal.apps set report_time_zone = $2 where app_id = $1", [appID, generator.pick(RandomWorkload.zones)]
            )
            // A window changed too (0046 recounts the campaign's control counts), taking nothing from the generator.
            try bench.connection.execute(
                "update cardinal.campaign_settings set conversion_window = '2 days' where app_id = $1 and campaign_id = $2",
                [appID, campaign]
            )
            if generator.chance(0.5) {
                _ = try bench.state.fold()
            }
            for _ in 0..<3 {
                #expect(try bench.uniqueImpressions(app: app, generator: &generator).0 == 0, "workload \(seed)")
                #expect(try bench.controlArms(app: app, generator: &generator).0 == 0, "workload \(seed)")
                #expect(try bench.anomalies(app: app, generator: &generator).0 == 0, "workload \(seed)")
            }
            // A zone on the canvas's settings row changes nothing: canvas report days are the app's.
            try bench.connection.execute(
                "update cardinal.campaign_settings set report_time_zone = $3 where app_id = $1 and campaign_id = $2",
                [appID, RandomWorkload.canvas, generator.pick(RandomWorkload.zones)]
            )
            #expect(try bench.canvasControlArms(app: app, generator: &generator).0 == 0, "canvas, workload \(seed)")
            _ = try bench.state.fold()
            #expect(try bench.stateCountsDifferingFromRows(app: app) == 0, "state counts, workload \(seed)")
        }
    }

    @Test("Conversion events changed after ingest give the same control report as a fresh computation")
    func conversionEventsChangedAfterIngest() throws {
        let bench = try Bench()
        defer { bench.database.drop() }
        for seed in 4_001...4_030 as ClosedRange<UInt64> {
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "w\(seed)-")
            let app = "app\(seed)"
            let appID = try bench.load(workload, app: app, generator: &generator)
            // The folded rows keep the first conversion of the campaign's event: a new event, none, or
            // no settings row at all must each give what the reference computes from the raw events.
            let campaign = generator.pick(RandomWorkload.campaigns)
            if generator.chance(0.25) {
                try bench.connection.execute(
                    "delete from cardinal.campaign_settings where app_id = $1 and campaign_id = $2", [appID, campaign]
                )
            } else {
                try bench.connection.execute(
                    "update cardinal.campaign_settings set conversion_event = $3 where app_id = $1 and campaign_id = $2",
                    [appID, campaign, generator.pick(RandomWorkload.conversions as [String?] + [nil])]
                )
            }
            if generator.chance(0.5) {
                _ = try bench.state.fold()
            }
            for _ in 0..<3 {
                #expect(try bench.controlArms(app: app, generator: &generator).0 == 0, "workload \(seed)")
            }
            _ = try bench.state.fold()
            #expect(try bench.stateCountsDifferingFromRows(app: app) == 0, "state counts, workload \(seed)")
        }
    }

    @Test("Dropping expired partitions leaves the reports equal to the reference over the events left")
    func retentionKeepsStateConsistent() throws {
        let bench = try Bench()
        defer { bench.database.drop() }
        var generator = SeededGenerator(seed: 3_001)
        let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "aged-")
        let appID = try bench.load(workload, app: "aged", generator: &generator)
        // The same events again 120 days earlier (new ids): a month that a 60-day retention drops.
        let aged = workload.batches.flatMap { $0 }.map { event -> Event in
            var older = event
            older.id = UUID()
            older.time = event.time.addingTimeInterval(-120 * 86_400)
            return older
        }
        _ = try bench.writer.write(
            events: aged.map { EventRecord(appID: appID, event: $0, receivedAt: Date()) }, rejections: []
        )
        _ = try bench.state.fold()
        let oldDays = (bench.baseDay.adding(days: -125), bench.baseDay.adding(days: -55))
        let oldRows = "select count(*) from cardinal.unique_impressions('aged', $1, $2, true)"
        #expect(try bench.connection.query(oldRows, [oldDays.0, oldDays.1]).first?.decode(Int64.self, at: 0) ?? 0 > 0)

        let dropped = try bench.connection.query("select * from cardinal.drop_expired_event_partitions(interval '60 days')")
        #expect(dropped.count > 0)
        for _ in 0..<2 {
            #expect(try bench.uniqueImpressions(app: "aged", generator: &generator).0 == 0)
            #expect(try bench.anomalies(app: "aged", generator: &generator).0 == 0)
            #expect(try bench.controlArms(app: "aged", generator: &generator).0 == 0)
            _ = try bench.state.fold()
            #expect(try bench.stateCountsDifferingFromRows(app: "aged") == 0)
        }
        #expect(try bench.connection.query(oldRows, [oldDays.0, oldDays.1]).first?.decode(Int64.self, at: 0) == 0)
    }

    @Test("Requeueing an app's raw events and folding them again reproduces the state the writes folded")
    func refoldReproducesFoldedState() throws {
        let bench = try Bench()
        defer { bench.database.drop() }
        try bench.createNormalisers()
        for seed in 2_001...2_020 as ClosedRange<UInt64> {
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "w\(seed)-")
            let appID = try bench.load(workload, app: "app\(seed)", generator: &generator)
            _ = try bench.state.fold()
            let folded = try bench.state(of: appID)
            let queued = try bench.state.requeue(appID: appID)
            #expect(queued == Int64(Set(workload.batches.flatMap { $0 }.map(\.id)).count))
            #expect(try bench.state.backlog().events == queued)
            #expect(try bench.state.fold() == queued)
            #expect(try bench.state(of: appID) == folded, "workload \(seed)")
            #expect(!folded.isEmpty)
        }
    }

    @Test("A requeued app folded a few users at a time reproduces the folded state, exact between the parts")
    func refoldInPartsReproducesFoldedState() throws {
        let bench = try Bench()
        defer { bench.database.drop() }
        try bench.createNormalisers()
        // A budget of 10 queued events: the workloads' 40 to 150 events are folded in three parts or more.
        try bench.connection.execute("set cardinal.fold_queue_budget = 10")
        for seed in 2_101...2_108 as ClosedRange<UInt64> {
            var generator = SeededGenerator(seed: seed)
            let workload = RandomWorkload(generator: &generator, baseTime: bench.baseTime, people: "p\(seed)-")
            let app = "parts\(seed)"
            let appID = try bench.load(workload, app: app, generator: &generator)
            _ = try bench.state.fold()
            let folded = try bench.state(of: appID)
            let queued = try bench.state.requeue(appID: appID)
            #expect(queued >= 40, "workload \(seed)")

            var folds: [Int64] = []
            while try bench.state.queuedEvents() > 0, folds.count <= queued {
                folds.append(try bench.state.fold() ?? -1)
                #expect(try bench.uniqueImpressions(app: app, generator: &generator).0 == 0, "workload \(seed)")
                #expect(try bench.controlArms(app: app, generator: &generator).0 == 0, "workload \(seed)")
            }
            #expect(folds.count >= 3, "workload \(seed): \(folds)")
            #expect(folds.allSatisfy { $0 > 0 }, "workload \(seed): \(folds)")
            #expect(folds.reduce(0, +) == queued, "workload \(seed)")
            #expect(try bench.state(of: appID) == folded, "workload \(seed)")
        }
    }
}
