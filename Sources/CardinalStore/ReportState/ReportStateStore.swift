import Foundation
public import PostgresClient

/// The report state (`SQL/code/050`–`080`, docs/report-state.md): folding the
/// stored events into it, how far the fold lags behind ingest, and rebuilding an app's or a campaign's state from its raw events.
public struct ReportStateStore {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Folds the unfolded events into the state, in one repeatable-read transaction: every event stored since the
    /// last fold, and the re-queued ones (of a queue longer than a million, those of one part of the users, see
    /// ``queuedEvents()``).
    /// - Returns: how many events were folded, or `nil` when another fold or a rebuild holds the state lock.
    /// - Throws: `PostgresError`; `.serializationFailure` when a rebuild raced the fold (nothing was folded:
    ///   call again).
    public func fold() throws -> Int64? {
        let columns = Self.foldColumns
        return try connection.transaction(isolation: .repeatableRead) { connection in
            try connection.query("select \(columns.selectList) from \(columns.objectName)()").first?
                .decode(Int64?.self, column: columns["fold_report_state"])
        }
    }

    /// What is waiting for the fold, and the fold's pace over the last five minutes (`cardinal.report_fold_rate()`,
    /// which the ingest role may call). Throws when the fold's watermark counts in another cluster's transaction
    /// ids (a logical dump restored here), which no fold would ever pass: see
    /// `cardinal.rebase_report_state_watermark()`.
    public func backlog() throws -> ReportStateBacklog {
        // A watermark of another cluster's ids makes the backlog look empty forever; this raises instead.
        try connection.execute("select cardinal.check_report_fold_watermark()")
        let columns = ReportStateBacklog.sqlColumns
        guard let row = try connection.query(
            """
            select \(columns.selectList),
                   extract(epoch from clock_timestamp() - \(identifier: columns["oldest_received_at"]))::double precision
                       as oldest_age_seconds
            from \(columns.objectName)()
            """
        ).first else {
            return ReportStateBacklog(events: 0, oldestAgeSeconds: nil)
        }
        return ReportStateBacklog(
            events: try row.decode(Int64.self, column: columns["backlog_events"]),
            oldestAgeSeconds: try row.decode(Double?.self, column: "oldest_age_seconds"),
            fold: ReportFoldRate(
                eventsPerSecond: try row.decode(Double?.self, column: columns["fold_events_per_second"]),
                capacityEventsPerSecond: try row.decode(Double?.self, column: columns["capacity_events_per_second"]),
                arrivalEventsPerSecond: try row.decode(Double?.self, column: columns["arrival_events_per_second"]),
                drainSeconds: try row.decode(Double?.self, column: columns["drain_seconds"])
            )
        )
    }

    /// How many re-queued events (a rebuild's, a time zone change's) wait for the fold: a fold takes a long queue
    /// in parts, so the state is rebuilt once this is zero.
    public func queuedEvents() throws -> Int64 {
        try connection.query("select count(*) as queued from cardinal.report_fold_queue").first?
            .decode(Int64.self, column: "queued") ?? 0
    }

    /// Gives the emptied queue's pages back (VACUUM truncates them): after a rebuild the queue is millions of dead
    /// rows, and every report's pending read scans them (a second at 10 M) until autovacuum gets to it. For the
    /// table's owner; VACUUM cannot run in a transaction block.
    ///
    /// A VACUUM keeps the pages when another session of the database holds them at that moment: a snapshot
    /// older than the queue's deletes (an autovacuum ANALYZE, a fold) keeps the dead rows, a lock held past the
    /// truncation's 5 s wait keeps the pages. While the queue is empty and still has pages, the VACUUM is run
    /// again, five times in all, half a second apart; a queue that has rows again (a fold's re-queue) is left as
    /// it is.
    public func compactQueue() throws {
        let attempts = 5
        for attempt in 1...attempts {
            try connection.execute("vacuum cardinal.report_fold_queue")
            let row = try connection.query(
                """
                select pg_relation_size('cardinal.report_fold_queue') > 0
                       and not exists (select from cardinal.report_fold_queue) as has_empty_pages
                """
            ).first
            guard attempt < attempts, try row?.decode(Bool.self, column: "has_empty_pages") == true else { return }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    /// The campaigns with events of an app, for rebuilding them one by one.
    public func campaigns(appID: Int64) throws -> [String] {
        let columns = Self.groupColumns
        let campaign = columns["campaign_id"]
        return try connection.query(
            """
            select distinct \(identifier: campaign) from \(columns.objectName)
            where \(identifier: columns["app_id"]) = \(appID) and \(identifier: campaign) is not null order by 1
            """
        ).map { try $0.decode(String.self, column: campaign) }
    }

    /// Drops the state of an app (`campaign` nil: everything of it) or one campaign and queues its stored events
    /// again, in one transaction; the next folds rebuild it. Reports stay exact meanwhile.
    /// - Returns: how many events were queued.
    public func requeue(appID: Int64, campaign: String? = nil) throws -> Int64 {
        let columns = Self.requeueColumns
        return try connection.query("select \(columns.selectList) from \(columns.objectName)(\(appID), \(campaign))")
            .first?.decode(Int64.self, column: columns["requeue_report_state"]) ?? 0
    }
}
