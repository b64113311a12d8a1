import CardinalStore
import Testing

@testable import CardinalIngest

@Suite struct IngestMetricsTests {
    @Test("Event outcomes and rejection reasons are counted in the exposition text")
    func countsOutcomesAndReasons() {
        let metrics = IngestMetrics()
        metrics.recordEvents(accepted: 3, duplicates: 2, rejectionCodes: ["invalid_uuid", "invalid_uuid", "too_long"])
        let text = metrics.render()
        #expect(text.contains(#"cardinal_ingest_events_total{outcome="accepted"} 3"#))
        #expect(text.contains(#"cardinal_ingest_events_total{outcome="duplicate"} 2"#))
        #expect(text.contains(#"cardinal_ingest_events_total{outcome="rejected"} 3"#))
        #expect(text.contains(#"cardinal_ingest_rejections_total{code="invalid_uuid"} 2"#))
    }

    @Test("Histogram buckets are cumulative and end with +Inf equal to the count")
    func histogramBucketsAreCumulative() {
        let metrics = IngestMetrics()
        metrics.recordCommit(events: 5, duration: .milliseconds(3))
        metrics.recordCommit(events: 120, duration: .milliseconds(30))
        let text = metrics.render()
        #expect(text.contains(#"cardinal_ingest_batch_events_bucket{le="10"} 1"#))
        #expect(text.contains(#"cardinal_ingest_batch_events_bucket{le="250"} 2"#))
        #expect(text.contains(#"cardinal_ingest_batch_events_bucket{le="+Inf"} 2"#))
        #expect(text.contains("cardinal_ingest_batch_events_sum 125"))
        #expect(text.contains(#"cardinal_ingest_commit_seconds_bucket{le="0.005"} 1"#))
    }

    @Test("The fold's pace is exported as the last backlog read measured it, unknown as NaN, never draining as +Inf")
    func foldPaceGauges() {
        let metrics = IngestMetrics()
        #expect(metrics.render().contains("cardinal_report_state_fold_events_per_second NaN\n"))

        metrics.setFoldBacklog(ReportStateBacklog(
            events: 1200, oldestAgeSeconds: 4.5,
            fold: ReportFoldRate(eventsPerSecond: 250.5, capacityEventsPerSecond: 3000, arrivalEventsPerSecond: 2400,
                                 drainSeconds: 2)
        ))
        let text = metrics.render()
        #expect(text.contains("cardinal_report_state_backlog_events 1200\n"))
        #expect(text.contains("cardinal_report_state_fold_events_per_second 250.5\n"))
        #expect(text.contains("cardinal_report_state_fold_capacity_events_per_second 3000\n"))
        #expect(text.contains("cardinal_report_state_arrival_events_per_second 2400\n"))
        #expect(text.contains("cardinal_report_state_drain_seconds_estimate 2\n"))
        #expect(text.contains("# TYPE cardinal_report_state_drain_seconds_estimate gauge\n"))

        metrics.setFoldBacklog(ReportStateBacklog(
            events: 1200, oldestAgeSeconds: 9,
            fold: ReportFoldRate(capacityEventsPerSecond: 10, drainSeconds: .infinity)
        ))
        let stalled = metrics.render()
        #expect(stalled.contains("cardinal_report_state_drain_seconds_estimate +Inf\n"))
        #expect(stalled.contains("cardinal_report_state_arrival_events_per_second NaN\n"))
    }
}
