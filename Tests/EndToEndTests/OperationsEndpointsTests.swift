import Foundation
import PostgresClient
import Testing
import TestSupport

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

    @Test("Once the daemon has folded, /metrics and cardinal state status show the fold's pace and an empty backlog's drain time")
    func foldPaceInMetricsAndStateStatus() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--fold-interval", "1s"])
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        #expect(try client.ingest(TestEvent.impressions(10)).counts == .accepted(10))

        // The backlog read after the fold is the first to find a recorded fold: its capacity is a number then.
        let samples = try Poll.until("a backlog read after the daemon's fold") { () -> MetricsText? in
            let samples = MetricsText(try client.get("/metrics").text)
            let capacity = samples["cardinal_report_state_fold_capacity_events_per_second"]
            return capacity.isFinite && samples["cardinal_report_state_backlog_events"] == 0 ? samples : nil
        }

        // Nothing more to fold, so no fold runs after that read: the capacity is what the recorded folds did.
        let folds = try fixture.database.connect().query(
            """
            select sum(events)::bigint, sum(extract(epoch from finished_at - started_at))::double precision
            from cardinal.report_fold_runs
            """
        )[0]
        let folded = try folds.decode(Int64.self, at: 0)
        let capacity = Double(folded) / (try folds.decode(Double.self, at: 1))
        #expect(folded == 10)
        #expect(abs(samples["cardinal_report_state_fold_capacity_events_per_second"] - capacity) <= 1e-9 * capacity)
        #expect(samples["cardinal_report_state_fold_events_per_second"] > 0)
        #expect(samples["cardinal_report_state_arrival_events_per_second"].isFinite)
        #expect(samples["cardinal_report_state_drain_seconds_estimate"] == 0)

        let json = try CardinalCLI.succeed(
            ["state", "status", "--format", "json", "--database-url", fixture.database.url]
        )
        let status = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first, "\(json)"
        )
        #expect(status["unfolded_events"] as? String == "0")
        #expect(status["oldest_age_seconds"] is NSNull)
        #expect(status["capacity_events_per_second"] as? String == String(format: "%.1f", capacity))
        #expect(status["drain_seconds"] as? String == "0.0")
        #expect((status["fold_events_per_second"] as? String).flatMap(Double.init).map { $0 > 0 } == true, "\(json)")
        #expect((status["arrival_events_per_second"] as? String).flatMap(Double.init) != nil, "\(json)")
        let table = try CardinalCLI.succeed(["state", "status", "--database-url", fixture.database.url])
        #expect(table.hasPrefix("unfolded_events  oldest_age_seconds  fold_events_per_second  "
                                + "capacity_events_per_second  arrival_events_per_second  drain_seconds\n"),
                "\(table)")
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
