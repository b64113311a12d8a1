import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// 0068's `subtract_folded_daily_counts`: a re-key (the fold's identity step) and an erasure take the folded events
/// of some keys out of the day counts, and leave the queued ones, which were never in them, with one read of the
/// re-queue table however many events the keys have. Before 0068 the planner, believing the table empty, scanned it
/// once per event. Each scenario queues one campaign's events again while the other's stay folded, after the
/// emptied queue was vacuumed as `cardinal state rebuild` does, so that the statistics say the queue is empty.
/// Times are UTC before 15:00, so each lies on the Tokyo report day of the same number.
@Suite struct FoldedDayCountsSubtractionTests {
    private static let devices = 30

    /// Thirty anonymous devices, each with three c1 impressions (days 3, 4, 5) and two c2 impressions (days 4, 6),
    /// d0 with `moreOfFirstDevice` more c1 impressions on day 5, folded; then c2 rebuilt, the queue vacuumed, and c2
    /// queued again: 60 queued events, the c1 ones folded.
    private func deviceHistoryWithQueuedCampaign(moreOfFirstDevice: Int = 0) throws -> ReportScenario {
        let scenario = try ReportScenario()
        do {
            try scenario.write((0..<Self.devices).flatMap { index in
                [(3, "c1"), (4, "c1"), (5, "c1"), (4, "c2"), (6, "c2")].map { day, campaign in
                    event(.impression, at: scenario.time(day, "01:00:\(index)"), device: "d\(index)", campaign: campaign)
                }
            } + (0..<moreOfFirstDevice).map { index in
                event(.impression, at: scenario.time(5, "02:00:\(index)"), device: "d0", campaign: "c1")
            })
            let store = ReportStateStore(connection: scenario.connection)
            #expect(try store.fold() == Int64(Self.devices * 5 + moreOfFirstDevice))
            #expect(try store.requeue(appID: scenario.app.id, campaign: "c2") == Int64(Self.devices * 2))
            _ = try store.fold()
            try store.compactQueue()
            #expect(try store.requeue(appID: scenario.app.id, campaign: "c2") == Int64(Self.devices * 2))
            return scenario
        } catch {
            scenario.drop()
            throw error
        }
    }

    /// Runs `work` in a transaction and returns how many sequential scans of the re-queue table it made.
    private func queueScans(_ scenario: ReportScenario, _ work: (PostgresConnection) throws -> Void) throws -> Int64 {
        try scenario.connection.transaction(isolation: .repeatableRead) { connection in
            try work(connection)
            return try connection.query(
                """
                select seq_scan
                from pg_catalog.pg_stat_xact_user_tables
                where schemaname = 'cardinal' and relname = 'report_fold_queue'
                """
            ).first?.decode(Int64.self, at: 0) ?? -1
        }
    }

    /// Impressions in the app's day counts per campaign, "campaign count; …".
    private func countedImpressions(_ scenario: ReportScenario) throws -> String {
        try scenario.connection.query(
            """
            select string_agg(campaign_id || ' ' || impressions, '; ' order by campaign_id)
            from (
                select g.campaign_id, sum(c.impressions) as impressions
                from cardinal.report_daily_counts as c
                join cardinal.report_groups as g on g.group_id = c.group_id
                where g.app_id = $1
                group by g.campaign_id
            ) as per_campaign
            """,
            [scenario.app.id]
        ).first?.decode(String?.self, at: 0) ?? ""
    }

    @Test("A re-key while the queue holds events reads the queue a few times, not once per event, and counts each event once")
    func reKeyReadsTheQueueAFewTimes() throws {
        let scenario = try deviceHistoryWithQueuedCampaign()
        defer { scenario.drop() }
        // Every device logs in (a c1 impression on day 7): its folded c1 events leave the day counts, its queued
        // c2 events were never in them, and the fold counts all of them again under the user.
        try scenario.write((0..<Self.devices).map { index in
            event(.impression, at: scenario.time(7, "01:00:\(index)"), user: "u\(index)", device: "d\(index)")
        })
        let scans = try queueScans(scenario) { connection in
            _ = try connection.query("select cardinal.fold_report_state()")
        }
        // The fold's statements read the queue once each, 17 in all; one scan per re-keyed event on top (166 in all)
        // was the nested loop this guards against.
        #expect((1...40).contains(scans), "seq scans of report_fold_queue: \(scans)")
        #expect(try countedImpressions(scenario) == "c1 \(Self.devices * 4); c2 \(Self.devices * 2)")
        let keys = try scenario.connection.query(
            """
            select count(distinct u.user_key) filter (where u.user_key like 'u%'),
                   count(*) filter (where u.user_key like 'device:%')
            from cardinal.report_user_state as u
            join cardinal.report_groups as g on g.group_id = u.group_id
            where g.app_id = $1
            """,
            [scenario.app.id]
        ).first
        #expect(try keys?.decode(Int64.self, at: 0) == Int64(Self.devices))
        #expect(try keys?.decode(Int64.self, at: 1) == 0)
        #expect(try ReportStateStore(connection: scenario.connection).queuedEvents() == 0)
    }

    @Test("Erasing a device while the queue holds its events reads the queue a few times and takes out only its folded events")
    func erasureReadsTheQueueAFewTimes() throws {
        let scenario = try deviceHistoryWithQueuedCampaign(moreOfFirstDevice: 45)
        defer { scenario.drop() }
        let scans = try queueScans(scenario) { connection in
            let record = try IdentityEraser(connection: connection)
                .erase(ErasureTarget(kind: .device, id: "d0"), appID: scenario.app.id)
            #expect(record.events == 50)
        }
        // The erasure's statements read the queue once each, 15 in all whatever the device's events; one scan per
        // erased event on top (113 in all before 0068) was the nested loop.
        #expect((1...40).contains(scans), "seq scans of report_fold_queue: \(scans)")
        // d0's 48 folded c1 impressions left the counts; the queued c2 ones come back with the fold, less d0's.
        #expect(try countedImpressions(scenario) == "c1 \((Self.devices - 1) * 3)")
        _ = try ReportStateStore(connection: scenario.connection).fold()
        #expect(try countedImpressions(scenario) == "c1 \((Self.devices - 1) * 3); c2 \((Self.devices - 1) * 2)")
    }
}
