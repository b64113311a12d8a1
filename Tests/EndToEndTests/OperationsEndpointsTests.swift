import Foundation
import Testing

/// `/healthz`, `/readyz` and `/metrics`, as a load balancer and Prometheus use them.
@Suite struct OperationsEndpointsTests {
    @Test("/healthz and /readyz answer 200 while the process runs and the database is reachable")
    func healthAndReadiness() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = IngestClient(port: daemon.port, key: nil)

        let health = try client.get("/healthz")
        let readiness = try client.get("/readyz")

        #expect(health.status == 200)
        #expect(try health.json() as? [String: String] == ["status": "ok"])
        #expect(readiness.status == 200)
        #expect(try readiness.json() as? [String: String] == ["status": "ready"])
        #expect(try client.get("/nowhere").status == 404)
        #expect(try client.get("/v1/events").status == 405)
    }

    @Test("/metrics counts exactly the requests and events the test sent, by outcome, status and reason")
    func metricsMatchWhatWasSent() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let events = TestEvent.impressions(10)
        let mixed = MixedBatch()

        var results = [try client.ingest(events), try client.ingest(events)]
        results.append(try IngestResult(try client.post(body: mixed.body)))
        let badBody = try client.post(body: Array("nope".utf8))
        let badType = try client.post(body: TestEvent.jsonBatch(events), contentType: "text/csv")
        client.authorization = nil
        let noKey = try client.send(events)
        let metrics = try client.get("/metrics")

        #expect([badBody.status, badType.status, noKey.status] == [Int]([400, 415, 401]))
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
        let samples = MetricsText(metrics.text)
        #expect(samples[#"cardinal_ingest_events_total{outcome="accepted"}"#] == Double(results.map(\.accepted).reduce(0, +)))
        #expect(samples[#"cardinal_ingest_events_total{outcome="duplicate"}"#] == Double(results.map(\.duplicates).reduce(0, +)))
        #expect(samples[#"cardinal_ingest_events_total{outcome="rejected"}"#] == Double(results.map(\.rejected).reduce(0, +)))
        #expect(results.map(\.counts) == [.accepted(10), .init(accepted: 0, duplicates: 10, rejected: 0), mixed.expectedCounts])
        for (code, count) in Dictionary(grouping: mixed.expectedRejections, by: \.code).mapValues(\.count) {
            #expect(samples[#"cardinal_ingest_rejections_total{code="\#(code)"}"#] == Double(count), "code \(code)")
        }
        #expect(samples[#"cardinal_ingest_requests_total{status="200"}"#] == 3)
        #expect(samples[#"cardinal_ingest_requests_total{status="400"}"#] == 1)
        #expect(samples[#"cardinal_ingest_requests_total{status="401"}"#] == 1)
        #expect(samples[#"cardinal_ingest_requests_total{status="415"}"#] == 1)
        #expect(samples["cardinal_ingest_batch_events_count"] >= 1)
        #expect(samples["cardinal_ingest_batch_events_sum"] == Double(10 + 10 + mixed.goodIDs.count + mixed.expectedRejections.count))
        #expect(samples["cardinal_ingest_commit_seconds_count"] == samples["cardinal_ingest_batch_events_count"])
        #expect(samples["cardinal_ingest_queue_events"] == 0)
        #expect(samples["cardinal_ingest_database_up"] == 1)
    }

    @Test("Each of the daemon's database connections names its role in pg_stat_activity")
    func connectionsNameTheirRole() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--fold-interval", "1s"])
        defer { daemon.stop() }
        #expect(try fixture.client(of: daemon).ingest(TestEvent.impressions(3)).counts == .accepted(3))
        let connection = try fixture.database.connect()
        // The writer connected for the batch, the key lookup for its key, the settings pool at start, and the
        // folder at its first fold; the spool replayer connects only when it has something to replay.
        let expected = ["cardinald-key-lookup", "cardinald-report-state-fold", "cardinald-settings", "cardinald-writer"]
        let names = try Poll.until("the daemon's connections under their roles' names") { () -> [String]? in
            let names = try connection.query(
                """
                select distinct application_name
                from pg_catalog.pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid()
                  -- Not the server's own workers in this database (an autovacuum worker has no name).
                  and backend_type = 'client backend'
                order by 1
                """
            ).map { try $0.decode(String.self, at: 0) }
            return Set(expected).isSubset(of: names) ? names : nil
        }
        #expect(names.allSatisfy { $0.hasPrefix("cardinald-") }, "\(names)")
    }
}
