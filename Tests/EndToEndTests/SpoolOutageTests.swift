import Foundation
import Testing
import TestSupport

/// The database goes away under a daemon with a disk spool: clients keep getting 200 `accepted`, and once the
/// database is back every acknowledged event is stored exactly once, even across a `kill -9` in the replay.
@Suite struct SpoolOutageTests {
    @Test("While the database is stopped events are answered 200 accepted; once it is back each is stored exactly once")
    func outageIsSpooledAndReplayed() throws {
        let fixture = try OutageFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let client = IngestClient(port: daemon.port, key: fixture.key)
        let before = TestEvent.impressions(5)
        #expect(try client.ingest(before).counts == .accepted(5), "the key is known before the outage")

        try fixture.cluster.stop()

        let firstSpooled = Date()
        var spooled: [TestEvent] = []
        for _ in 0..<20 {
            let events = TestEvent.impressions(10)
            #expect(try client.ingest(events).counts == .accepted(10))
            spooled += events
        }
        let resent = Array(spooled.prefix(10))
        #expect(try client.ingest(resent).counts == .accepted(10), "a duplicate is only known at replay: accepted")
        let bad = TestEvent(json: #"{"id":"not-a-uuid","type":"impression"}"#)
        let mixed = try client.ingest([bad] + TestEvent.impressions(1))
        #expect(mixed.counts == .init(accepted: 1, duplicates: 0, rejected: 1))
        let readiness = try client.get("/readyz")
        #expect(readiness.status == 200)
        #expect(readiness.text.contains(#""status":"degraded""#), "\(readiness.text)")
        let metrics = try MetricsText(client.get("/metrics").text)
        #expect(metrics["cardinal_spool_records"] == 22)
        #expect(metrics["cardinal_spool_bytes"] > 0)
        let age = metrics["cardinal_spool_oldest_record_age_seconds"]
        #expect(age > 0 && age <= Date().timeIntervalSince(firstSpooled), "the first spooled record's age")
        #expect(!fixture.segmentFiles().isEmpty)

        try fixture.cluster.start()
        try fixture.waitUntilSpoolDrained(client)

        let tables = try fixture.tables()
        let acknowledged = Set((before + spooled).map(\.id))
        let stored = try tables.storedIDs()
        #expect(acknowledged.isSubset(of: stored), "every acknowledged event was replayed")
        #expect(try tables.eventCount() == stored.count, "and stored once, the resent ones included")
        #expect(stored.count == acknowledged.count + 1, "plus the valid event of the mixed batch")
        #expect(try tables.rejections().map(\.code) == ["invalid_uuid"], "the rejected event is kept as evidence")
        #expect(try client.get("/readyz").text.contains(#""status":"ready""#))
        let after = try MetricsText(client.get("/metrics").text)
        #expect(after["cardinal_spool_replayed_events_total"] == 211, "events, not rejections, and the resent ones too")
        #expect(after["cardinal_spool_quarantined_records_total"] == 0)
        #expect(after["cardinal_spool_oldest_record_age_seconds"] == 0, "nothing is left to age")
    }

    @Test("An event the database refuses at replay is stored as a rejection; the rest of its batch is stored")
    func eventRefusedAtReplay() throws {
        let fixture = try OutageFixture()
        try fixture.tables().connection.executeScript("update cardinal.settings set retention_days = 30")
        // The daemon validates with 400 days, as one started during an outage does until it reads the settings.
        let daemon = try fixture.startDaemon(["--retention-days", "400"])
        defer { daemon.stop() }
        let client = IngestClient(port: daemon.port, key: fixture.key)
        #expect(try client.ingest(TestEvent.impressions(1)).counts == .accepted(1))
        try fixture.cluster.stop()

        let good = TestEvent.impressions(4)
        let old = TestEvent.impression(time: EpochMilliseconds.hoursAgo(90 * 24))
        #expect(try client.ingest([good[0], old] + good[1...]).counts == .accepted(5), "spooled, so only known at replay")
        try fixture.cluster.start()
        try fixture.waitUntilSpoolDrained(client)

        let tables = try fixture.tables()
        #expect(Set(good.map(\.id)).isSubset(of: try tables.storedIDs()))
        #expect(!(try tables.storedIDs().contains(old.id)))
        let rejections = try tables.rejections()
        #expect(rejections.map(\.code) == ["time_too_old"])
        #expect(rejections.map(\.eventID) == [old.id.uuidString.lowercased()])
        #expect(rejections.map(\.index) == [1], "its position in the spooled batch")
        #expect(rejections.first?.requestID?.hasPrefix("spool-") == true)
        let metrics = try MetricsText(client.get("/metrics").text)
        #expect(metrics["cardinal_spool_quarantined_records_total"] == 0)
    }

    @Test("A kill -9 during the replay loses nothing and stores nothing twice: the restarted daemon finishes it")
    func killDuringReplay() throws {
        let fixture = try OutageFixture()
        // Small segments and chunks make the replay take many steps, so that the kill lands in the middle of it.
        let options = ["--spool-segment-bytes", "20000", "--spool-replay-chunk-events", "20"]
        let first = try fixture.startDaemon(options)
        defer { first.stop() }
        let client = IngestClient(port: first.port, key: fixture.key)
        #expect(try client.ingest(TestEvent.impressions(1)).counts == .accepted(1))
        try fixture.cluster.stop()
        let batches = (0..<300).map { _ in TestEvent.impressions(20) }
        for batch in batches {
            #expect(try client.ingest(batch).counts == .accepted(20))
        }
        let segmentsBefore = fixture.segmentFiles().count
        #expect(segmentsBefore > 5)

        try fixture.cluster.start()
        try Poll.until("the replay to begin", interval: .milliseconds(2)) { () -> Bool? in
            try MetricsText(client.get("/metrics").text)["cardinal_spool_replayed_events_total"] > 0 ? true : nil
        }
        try first.crash()
        #expect(!fixture.segmentFiles().isEmpty, "the kill came before the replay finished")

        let second = try fixture.startDaemon(options)
        defer { second.stop() }
        try fixture.waitUntilSpoolDrained(IngestClient(port: second.port, key: fixture.key))

        let tables = try fixture.tables()
        let acknowledged = Set(batches.joined().map(\.id))
        let stored = try tables.storedIDs()
        #expect(acknowledged.isSubset(of: stored), "none lost")
        #expect(try tables.eventCount() == stored.count, "none twice")
        #expect(stored.count == acknowledged.count + 1)
    }

    @Test("After a crash, a torn tail is truncated and a corrupt record in the middle is quarantined; the rest replays")
    func damagedSpoolAfterCrash() throws {
        let fixture = try OutageFixture()
        let options = ["--spool-segment-bytes", "20000"]
        let first = try fixture.startDaemon(options)
        defer { first.stop() }
        let client = IngestClient(port: first.port, key: fixture.key)
        #expect(try client.ingest(TestEvent.impressions(1)).counts == .accepted(1))
        try fixture.cluster.stop()
        let batches = (0..<40).map { _ in TestEvent.impressions(20) }
        for batch in batches {
            #expect(try client.ingest(batch).counts == .accepted(20))
        }
        try first.crash()

        let segments = fixture.segmentFiles().sorted().map { fixture.spoolDirectory.appendingPathComponent($0) }
        #expect(segments.count > 2)
        // A flipped byte in the middle of the oldest segment, and half a record at the end of the newest.
        var oldest = try Data(contentsOf: segments[0])
        oldest[oldest.count / 2] ^= 0xFF
        try oldest.write(to: segments[0])
        let newest = segments[segments.count - 1]
        let intactSize = try Self.size(of: newest)
        let handle = try FileHandle(forWritingTo: newest)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("CSR1".utf8) + Data([200, 0, 0, 0, 1, 2, 3, 4]) + Data(repeating: 7, count: 50))
        try handle.close()

        let second = try fixture.startDaemon(options)
        defer { second.stop() }
        #expect(try Self.size(of: newest) == intactSize, "the torn tail is cut off at start, before any replay")
        try fixture.cluster.start()
        let restarted = IngestClient(port: second.port, key: fixture.key)
        try fixture.waitUntilSpoolDrained(restarted)

        let metrics = try MetricsText(restarted.get("/metrics").text)
        #expect(metrics["cardinal_spool_quarantined_records_total"] == 1)
        let quarantine = try FileManager.default.contentsOfDirectory(
            atPath: fixture.spoolDirectory.appendingPathComponent("quarantine").path)
        #expect(quarantine.count == 1)
        let stored = try fixture.tables().storedIDs()
        let missing = batches.filter { !Set($0.map(\.id)).isSubset(of: stored) }
        #expect(missing.count == 1, "exactly the damaged record's batch is missing")
        #expect(missing.first.map { Set($0.map(\.id)).isDisjoint(with: stored) } == true)
        #expect(stored.count == 1 + 39 * 20)
    }

    private static func size(of file: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? -1
    }

    @Test("A batch whose commit hangs past --spool-commit-timeout is spooled and answered 200, and stored once later")
    func hungCommitIsSpooled() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--spool-commit-timeout", "300ms"])
        defer { daemon.stop() }
        let client = fixture.client(of: daemon)
        #expect(try client.ingest(TestEvent.impressions(1)).counts == .accepted(1))
        let lock = try TableLock(fixture)
        defer { lock.release() }

        var events: [TestEvent] = []
        for _ in 0..<5 {
            let batch = TestEvent.impressions(10)
            #expect(try client.ingest(batch).counts == .accepted(10))
            events += batch
        }
        #expect(try MetricsText(client.get("/metrics").text)["cardinal_spool_appended_events_total"] == 50)
        #expect(try client.get("/readyz").text.contains("degraded"))

        lock.release()
        try Poll.until("the spool to drain", interval: .milliseconds(100)) { () -> Bool? in
            try MetricsText(client.get("/metrics").text)["cardinal_spool_records"] == 0 ? true : nil
        }
        let tables = try fixture.tables()
        let stored = try tables.storedIDs()
        #expect(Set(events.map(\.id)).isSubset(of: stored))
        #expect(try tables.eventCount() == stored.count, "the hung commit and the replay store each event once")
    }

    @Test("A second daemon on a spool directory in use refuses to start and says why")
    func spoolDirectoryIsLocked() throws {
        let fixture = try IngestFixture()
        let spool = DaemonProcess.temporarySpoolDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        let first = try fixture.startDaemon(["--spool-dir", spool.path])
        defer { first.stop() }
        let second = try ChildProcess.run(try CardinalCLI.binary("cardinald"), [
            "--database-url", fixture.database.url, "--listen", "127.0.0.1:0", "--spool-dir", spool.path,
        ], timeout: .seconds(60))
        #expect(second.exitStatus == 1)
        #expect(second.standardError.contains("in use by another cardinald"), "\(second.standardError)")
    }

    @Test("A spool directory that cannot be created stops the daemon at start with a clear error")
    func spoolDirectoryCannotBeCreated() throws {
        let fixture = try IngestFixture()
        let result = try ChildProcess.run(try CardinalCLI.binary("cardinald"), [
            "--database-url", fixture.database.url, "--listen", "127.0.0.1:0", "--spool-dir", "/proc/cardinal/spool",
        ], timeout: .seconds(60))
        #expect(result.exitStatus == 1)
        #expect(result.standardError.contains("cannot create the spool directory /proc/cardinal/spool"), "\(result.standardError)")
    }
}
