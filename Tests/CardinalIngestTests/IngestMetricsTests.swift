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
}
