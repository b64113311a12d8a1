import CardinalStore
import Foundation
import Synchronization

/// The daemon's metrics, served at `GET /metrics` in Prometheus text format.
final class IngestMetrics: Sendable {
    private struct State {
        var requestsByStatus: [String: Int] = [:]
        var eventsByOutcome: [String: Int] = ["accepted": 0, "duplicate": 0, "rejected": 0]
        var rejectionsByCode: [String: Int] = [:]
        var databaseErrorsBySQLState: [String: Int] = [:]
        var batchEvents = Histogram(upperBounds: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000])
        var commitSeconds = Histogram(
            upperBounds: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
        )
        var queuedEvents = 0
        var databaseUp = true
        var foldBacklogEvents: Int64 = 0
        var foldLagSeconds = 0.0
        var foldRate = ReportFoldRate()
        var foldedEvents: Int64 = 0
        var foldSeconds = Histogram(upperBounds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])
        var spool: SpoolWriter.Snapshot?
        var spooledEvents = 0
        var replayedEvents = 0
        var quarantinedRecords = 0
        var rateLimitedByBucket: [String: Int] = ["requests": 0, "events": 0]
        var rejectionsNotStoredByReason: [String: Int] = ["request_cap": 0, "app_hourly_cap": 0]
    }

    private let state = Mutex(State())

    func recordRequest(status: Int) {
        state.withLock { $0.requestsByStatus[String(status), default: 0] += 1 }
    }

    func recordEvents(accepted: Int, duplicates: Int, rejectionCodes: [String]) {
        state.withLock { state in
            state.eventsByOutcome["accepted", default: 0] += accepted
            state.eventsByOutcome["duplicate", default: 0] += duplicates
            state.eventsByOutcome["rejected", default: 0] += rejectionCodes.count
            for code in rejectionCodes {
                state.rejectionsByCode[code, default: 0] += 1
            }
        }
    }

    /// A request answered 429 because the app's `bucket` (`requests` or `events`) was empty.
    func recordRateLimited(bucket: String) {
        state.withLock { $0.rateLimitedByBucket[bucket, default: 0] += 1 }
    }

    /// Rejected events answered but not stored: beyond the per-request cap, or beyond the app's hourly quota.
    func recordRejectionsNotStored(overRequestCap: Int, overAppQuota: Int) {
        guard overRequestCap > 0 || overAppQuota > 0 else { return }
        state.withLock { state in
            state.rejectionsNotStoredByReason["request_cap", default: 0] += overRequestCap
            state.rejectionsNotStoredByReason["app_hourly_cap", default: 0] += overAppQuota
        }
    }

    func recordCommit(events: Int, duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        state.withLock { state in
            state.batchEvents.observe(Double(events))
            state.commitSeconds.observe(seconds)
        }
    }

    func recordDatabaseError(sqlState: String?) {
        state.withLock { $0.databaseErrorsBySQLState[sqlState ?? "connection", default: 0] += 1 }
    }

    func setQueuedEvents(_ count: Int) {
        state.withLock { $0.queuedEvents = count }
    }

    func setDatabaseUp(_ isUp: Bool) {
        state.withLock { $0.databaseUp = isUp }
    }

    func setFoldBacklog(_ backlog: ReportStateBacklog) {
        state.withLock { state in
            state.foldBacklogEvents = backlog.events
            state.foldLagSeconds = backlog.oldestAgeSeconds ?? 0
            state.foldRate = backlog.fold
        }
    }

    func recordFold(events: Int64, duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        state.withLock { state in
            state.foldedEvents += events
            state.foldSeconds.observe(seconds)
        }
    }

    /// What the disk spool holds now (set by `SpoolWriter` after every change).
    func setSpool(_ snapshot: SpoolWriter.Snapshot) {
        state.withLock { $0.spool = snapshot }
    }

    func recordSpooled(events: Int) {
        state.withLock { $0.spooledEvents += events }
    }

    func recordReplayed(events: Int) {
        state.withLock { $0.replayedEvents += events }
    }

    func recordQuarantined(records: Int) {
        state.withLock { $0.quarantinedRecords += records }
    }

    /// The exposition text.
    func render() -> String {
        let state = state.withLock { $0 }
        var text = ""
        PrometheusText.header("cardinal_ingest_requests_total", type: "counter",
                              help: "HTTP requests to POST /v1/events by response status.", into: &text)
        PrometheusText.labelled("cardinal_ingest_requests_total", label: "status", values: state.requestsByStatus, into: &text)
        PrometheusText.header("cardinal_ingest_events_total", type: "counter",
                              help: "Events by outcome: accepted (stored), duplicate, rejected.", into: &text)
        PrometheusText.labelled("cardinal_ingest_events_total", label: "outcome", values: state.eventsByOutcome, into: &text)
        PrometheusText.header("cardinal_ingest_rejections_total", type: "counter",
                              help: "Rejected events by reason code.", into: &text)
        PrometheusText.labelled("cardinal_ingest_rejections_total", label: "code", values: state.rejectionsByCode, into: &text)
        PrometheusText.header("cardinal_ingest_rate_limited_total", type: "counter",
                              help: "Requests answered 429 by the app bucket that was empty (requests or events).", into: &text)
        PrometheusText.labelled("cardinal_ingest_rate_limited_total", label: "bucket", values: state.rateLimitedByBucket, into: &text)
        PrometheusText.header("cardinal_ingest_rejections_not_stored_total", type: "counter",
                              help: "Rejected events answered but not kept in rejected_events: past the per-request cap (request_cap) or the app's hourly quota (app_hourly_cap).",
                              into: &text)
        PrometheusText.labelled("cardinal_ingest_rejections_not_stored_total", label: "reason",
                                values: state.rejectionsNotStoredByReason, into: &text)
        PrometheusText.header("cardinal_ingest_database_errors_total", type: "counter",
                              help: "Failed database writes by SQLSTATE (connection: could not connect).", into: &text)
        PrometheusText.labelled("cardinal_ingest_database_errors_total", label: "sqlstate",
                                values: state.databaseErrorsBySQLState, into: &text)
        PrometheusText.header("cardinal_ingest_batch_events", type: "histogram",
                              help: "Events and rejections written per committed batch.", into: &text)
        state.batchEvents.render(name: "cardinal_ingest_batch_events", into: &text)
        PrometheusText.header("cardinal_ingest_commit_seconds", type: "histogram",
                              help: "Time to write and commit one batch.", into: &text)
        state.commitSeconds.render(name: "cardinal_ingest_commit_seconds", into: &text)
        PrometheusText.header("cardinal_ingest_queue_events", type: "gauge",
                              help: "Events waiting for a writer.", into: &text)
        text += "cardinal_ingest_queue_events \(state.queuedEvents)\n"
        PrometheusText.header("cardinal_ingest_database_up", type: "gauge",
                              help: "1 when the writers last reached the database, else 0.", into: &text)
        text += "cardinal_ingest_database_up \(state.databaseUp ? 1 : 0)\n"
        PrometheusText.header("cardinal_report_state_backlog_events", type: "gauge",
                              help: "Stored events not yet folded into the report state, before the last fold.", into: &text)
        text += "cardinal_report_state_backlog_events \(state.foldBacklogEvents)\n"
        PrometheusText.header("cardinal_report_state_lag_seconds", type: "gauge",
                              help: "Age of the oldest stored event not yet folded, before the last fold.", into: &text)
        text += "cardinal_report_state_lag_seconds \(state.foldLagSeconds)\n"
        renderFoldRate(state.foldRate, into: &text)
        PrometheusText.header("cardinal_report_state_folded_events_total", type: "counter",
                              help: "Events folded into the report state by this daemon.", into: &text)
        text += "cardinal_report_state_folded_events_total \(state.foldedEvents)\n"
        PrometheusText.header("cardinal_report_state_fold_seconds", type: "histogram",
                              help: "Time to fold the queued events into the report state.", into: &text)
        state.foldSeconds.render(name: "cardinal_report_state_fold_seconds", into: &text)
        if let spool = state.spool {
            renderSpool(spool, state, into: &text)
        }
        return text
    }

    /// The fold's pace, as `cardinal.report_fold_rate()` measured it before the last fold: the database's, the
    /// same on every daemon. An unknown figure (no fold recorded yet) is `NaN`.
    private func renderFoldRate(_ rate: ReportFoldRate, into text: inout String) {
        let gauges: [(String, String, Double?)] = [
            ("cardinal_report_state_fold_events_per_second",
             "Events folded per second by every fold of the database, since the latest fold that began 5 minutes ago or earlier (cardinal.report_fold_rate).",
             rate.eventsPerSecond),
            ("cardinal_report_state_fold_capacity_events_per_second",
             "Events those folds folded per second they spent folding: what the fold does while it runs.",
             rate.capacityEventsPerSecond),
            ("cardinal_report_state_arrival_events_per_second",
             "Events added to the report-state backlog per second over the same time: stored, re-queued or re-keyed.",
             rate.arrivalEventsPerSecond),
            ("cardinal_report_state_drain_seconds_estimate",
             "Seconds to fold the backlog at these rates, backlog / (capacity - arrival): 0 when it is empty, +Inf when the fold does not gain on it.",
             rate.drainSeconds),
        ]
        for (name, help, value) in gauges {
            PrometheusText.header(name, type: "gauge", help: help, into: &text)
            text += "\(name) \(value.map(PrometheusText.number) ?? "NaN")\n"
        }
    }

    private func renderSpool(_ spool: SpoolWriter.Snapshot, _ state: State, into text: inout String) {
        let gauges: [(String, String, String)] = [
            ("cardinal_spool_bytes", "Bytes in the disk spool's segments, waiting for replay.", String(spool.bytes)),
            ("cardinal_spool_records", "Batches (records) in the disk spool.", String(spool.records)),
            ("cardinal_spool_events", "Events in the disk spool.", String(spool.events)),
            ("cardinal_spool_oldest_record_age_seconds", "Age of the oldest spooled record; 0 when the spool is empty.",
             String(spool.oldestSpooledAt.map { max(0, Date.now.timeIntervalSince($0)) } ?? 0)),
            ("cardinal_spool_full", "1 while the spool refuses batches (cap or disk full), else 0.", spool.isFull ? "1" : "0"),
        ]
        for (name, help, value) in gauges {
            PrometheusText.header(name, type: "gauge", help: help, into: &text)
            text += "\(name) \(value)\n"
        }
        let counters: [(String, String, Int)] = [
            ("cardinal_spool_appended_events_total", "Events and rejections spooled because the database was unavailable.",
             state.spooledEvents),
            ("cardinal_spool_replayed_events_total", "Spooled events the replay wrote to the database: stored, duplicates, or refused and kept as rejections.", state.replayedEvents),
            ("cardinal_spool_quarantined_records_total", "Damaged or refused spool records moved to quarantine/.",
             state.quarantinedRecords),
        ]
        for (name, help, value) in counters {
            PrometheusText.header(name, type: "counter", help: help, into: &text)
            text += "\(name) \(value)\n"
        }
    }
}
