import Foundation
import Testing
import TestSupport

/// The limits that keep one client from spending the daemon's memory, connections or database: each against
/// the real daemon and database.
@Suite(.serialized) struct IngestLimitsTests {
    @Test("A batch of one event more than --max-events-per-request is answered 413 too_many_events; nothing is stored")
    func tooManyEvents() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--max-events-per-request", "10"])
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)

        let tooMany = try client.send(TestEvent.impressions(11))
        let atLimit = try client.ingest(TestEvent.impressions(10), format: .ndjson)

        #expect(tooMany.status == 413)
        #expect(try ErrorBody(tooMany).code == "too_many_events")
        #expect(atLimit.counts == .accepted(10))
        #expect(try fixture.tables().eventCount() == 10)
    }

    @Test("A gzip body of a million zero lines is refused 413 after the limit, not turned into a million rejections")
    func gzipBombOfZeros() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let zeros = [UInt8](repeating: 0, count: 2_000_000).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "0") : 10 }

        let reply = try fixture.client(of: daemon).post(body: zeros, contentType: "application/x-ndjson", gzip: true)

        #expect(reply.status == 413)
        #expect(try ErrorBody(reply).code == "too_many_events")
        #expect(try fixture.tables().rejections().isEmpty)
    }

    @Test("An unknown key that announces an 8 MB body is answered 401 before a byte of the body is sent")
    func unknownKeyRefusedBeforeBody() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let socket = try RawSocket(port: daemon.port, timeout: 10)

        socket.send(Array("""
            POST /v1/events HTTP/1.1\r
            Host: 127.0.0.1\r
            Authorization: Bearer cdl_ck_000000000000_notakey\r
            Content-Type: application/json\r
            Content-Length: 8388608\r
            \r

            """.utf8))

        #expect(socket.readStatus() == 401)
    }

    @Test("An app over the request rate set with 'cardinal apps limits' gets 429 with Retry-After, while another app is served")
    func requestRateLimit() throws {
        let fixture = try IngestFixture()
        try CardinalCLI.createApp("other", databaseURL: fixture.database.url)
        let otherKey = try CardinalCLI.createKey(app: "other", databaseURL: fixture.database.url)
        let shown = try CardinalCLI.succeed(["apps", "limits", IngestFixture.appName, "--requests-per-second", "2",
                                             "--database-url", fixture.database.url])
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let limited = fixture.client(of: daemon)
        let other = IngestClient(port: daemon.port, key: otherKey)

        let statuses = try (0..<6).map { _ in try limited.send(TestEvent.impressions(1)).status }
        let refused = try limited.send(TestEvent.impressions(1))
        let otherStatuses = try (0..<6).map { _ in try other.send(TestEvent.impressions(1)).status }
        let metrics = MetricsText(try other.get("/metrics").text)

        #expect(shown == "events_per_second=default requests_per_second=2\n")
        #expect(statuses.prefix(2) == [200, 200])
        #expect(statuses.contains(429))
        #expect(refused.status == 429)
        #expect(try ErrorBody(refused).code == "rate_limited")
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(otherStatuses == Array(repeating: 200, count: 6))
        #expect(metrics[#"cardinal_ingest_rate_limited_total{bucket="requests"}"#] >= 2)
        #expect(try fixture.tables().eventCount() == statuses.filter { $0 == 200 }.count + 6)
    }

    @Test("An app refused 30 times logs one 'request refused' line in full and the rest as counts; /metrics counts each")
    func repeatedRefusalsAreSummarised() throws {
        let fixture = try IngestFixture()
        try CardinalCLI.succeed(["apps", "limits", IngestFixture.appName, "--requests-per-second", "1",
                                 "--database-url", fixture.database.url])
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)

        let statuses = try (0..<31).map { _ in try client.send(TestEvent.impressions(1)).status }
        let metrics = MetricsText(try client.get("/metrics").text)
        daemon.terminate()
        #expect(try daemon.waitForExit() == .exited(0))

        let refusals = statuses.filter { $0 == 429 }.count
        #expect(refusals >= 20)
        #expect(metrics[#"cardinal_ingest_rate_limited_total{bucket="requests"}"#] == Double(refusals))
        let logged = daemon.standardError.split(separator: "\n").filter {
            $0.contains(#"msg="request refused""#) && $0.contains("http.status=429")
        }
        // One summary at shutdown, or more when the load slowed the test past the one-minute interval.
        let summaries = logged.filter { $0.contains("log.repeated=") }
        let counted = summaries.compactMap { $0.firstMatch(of: /log\.repeated=(\d+)/).flatMap { Int($0.output.1) } }
        #expect(logged.count - summaries.count == 1, "one refusal in full: \(logged)")
        #expect(logged.first?.contains("ingest.request_id=") == true)
        #expect(!summaries.isEmpty && summaries.allSatisfy { $0.contains("log.interval=60s") }, "\(logged)")
        #expect(counted.reduce(0, +) == refusals - 1, "every other refusal is counted once: \(logged)")
    }

    @Test("Rejections past the per-request cap and the app's hourly quota are answered but not stored, and counted")
    func rejectionsNotStored() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--max-stored-rejections-per-request", "3",
                                              "--max-stored-rejections-per-app-hour", "5"])
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        let junk = (0..<4).map { _ in TestEvent(json: #"{"id":"nope"}"#) }

        let first = try client.ingest(junk)
        let second = try client.ingest(junk)
        let metrics = MetricsText(try client.get("/metrics").text)

        #expect(first.counts.rejected == 4)
        #expect(second.counts.rejected == 4)
        // 3 of the first request; 2 of the second (the hourly quota of 5), so 1 + 1 past the request cap
        // and 1 past the quota.
        #expect(try fixture.tables().rejections().count == 5)
        #expect(metrics[#"cardinal_ingest_rejections_not_stored_total{reason="request_cap"}"#] == 2)
        #expect(metrics[#"cardinal_ingest_rejections_not_stored_total{reason="app_hourly_cap"}"#] == 1)
    }
}
