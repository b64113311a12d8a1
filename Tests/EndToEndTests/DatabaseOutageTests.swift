import Foundation
import Testing
import TestSupport

/// The database goes away under a running daemon with its spool turned off (`--spool-max-bytes 0`), the
/// behaviour before the disk spool and the one past its cap. The shared test cluster serves other tests, so
/// this test stops a throwaway cluster of its own. `SpoolOutageTests` covers the same outage with a spool.
@Suite struct DatabaseOutageTests {
    @Test("Without a spool, while the database is stopped the daemon answers 503 with Retry-After, and it recovers by itself")
    func databaseStoppedAndStarted() throws {
        let cluster = try TemporaryCluster()
        defer { cluster.destroy() }
        let databaseURL = try cluster.createDatabase("cardinal")
        try CardinalCLI.migrate(databaseURL: databaseURL)
        try CardinalCLI.createApp("outage-app", databaseURL: databaseURL)
        let key = try CardinalCLI.createKey(app: "outage-app", databaseURL: databaseURL)
        let daemon = try DaemonProcess(databaseURL: databaseURL, options: ["--spool-max-bytes", "0"])
        defer { daemon.stop() }
        let client = IngestClient(port: daemon.port, key: key)
        let before = TestEvent.impressions(10)
        #expect(try client.ingest(before).counts == .accepted(10))
        #expect(try client.get("/readyz").status == 200)

        try cluster.stop()

        var refused: [TestEvent] = []
        for _ in 0..<3 {
            let events = TestEvent.impressions(10)
            let reply = try client.send(events)
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After").flatMap(Int.init).map { $0 > 0 } == true, "Retry-After: \(reply.header("Retry-After") ?? "none")")
            #expect(try ErrorBody(reply).code == "database_unavailable")
            refused += events
        }
        let readiness = try client.get("/readyz")
        #expect(readiness.status == 503)
        #expect(readiness.header("Retry-After") != nil)
        #expect(try client.get("/healthz").status == 200, "the process itself is alive")
        #expect(try MetricsText(client.get("/metrics").text)["cardinal_ingest_database_up"] == 0)

        try cluster.start()

        let after = TestEvent.impressions(10)
        let recovered = try Poll.until("the daemon to store events again", interval: .milliseconds(200)) { () -> IngestResult? in
            let reply = try client.send(after)
            return reply.status == 200 ? try IngestResult(reply) : nil
        }
        #expect(recovered.accepted + recovered.duplicates == 10)
        try Poll.until("/readyz to answer 200 again", interval: .milliseconds(200)) {
            try client.get("/readyz").status == 200 ? true : nil
        }
        let tables = EventTables(connection: try .init(connectionString: databaseURL))
        let stored = try tables.storedIDs()
        #expect(stored == Set((before + after).map(\.id)), "nothing answered 503 was stored")
        #expect(stored.isDisjoint(with: refused.map(\.id)))
    }
}
