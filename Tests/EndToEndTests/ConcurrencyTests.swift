import Foundation
import Testing

/// Many clients at once: group commit must neither lose nor double an acknowledged event.
@Suite struct ConcurrencyTests {
    /// What the clients saw.
    private struct Outcomes: Sendable {
        var accepted = 0
        var duplicates = 0
        var overloadedRetries = 0
        var failures: [String] = []
    }

    @Test("Every event acknowledged to many concurrent clients is stored exactly once")
    func manyClients() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let (clients, requests, eventsPerRequest) = (16, 20, 50)
        let batches = (0..<clients).map { client in
            (0..<requests).map { _ in TestEvent.impressions(eventsPerRequest, user: "user-\(client)") }
        }
        let outcomes = Locked(Outcomes())
        let key = fixture.key

        let finished = ClientThreads.run(count: clients, name: "client") { index in
            let client = IngestClient(port: daemon.port, key: key)
            for batch in batches[index] {
                Self.deliver(batch, with: client, into: outcomes)
            }
        }

        #expect(finished, "the clients finished")
        let seen = outcomes.value
        #expect(seen.failures.isEmpty, "\(seen.failures.prefix(5))")
        let sent = clients * requests * eventsPerRequest
        let tables = try fixture.tables()
        #expect(seen.accepted + seen.duplicates == sent)
        #expect(try tables.eventCount() == seen.accepted)
        #expect(try tables.distinctEventIDCount() == seen.accepted)
        #expect(try tables.storedIDs() == Set(batches.joined().joined().map(\.id)))
    }

    @Test("Clients racing to send the same events store each event once")
    func sameEventsFromManyClients() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        let clients = 8
        let batches = (0..<10).map { _ in TestEvent.impressions(50) }
        let outcomes = Locked(Outcomes())
        let key = fixture.key

        let finished = ClientThreads.run(count: clients, name: "racer") { index in
            let client = IngestClient(port: daemon.port, key: key)
            // Each client walks the batches from a different starting point, so that batches meet in the writer.
            for offset in 0..<batches.count {
                Self.deliver(batches[(index + offset) % batches.count], with: client, into: outcomes)
            }
        }

        #expect(finished, "the clients finished")
        let seen = outcomes.value
        #expect(seen.failures.isEmpty, "\(seen.failures.prefix(5))")
        let distinct = batches.joined().count
        #expect(seen.accepted == distinct)
        #expect(seen.accepted + seen.duplicates == clients * distinct)
        let tables = try fixture.tables()
        #expect(try tables.eventCount() == distinct)
        #expect(try tables.repeatedIDs().isEmpty)
    }

    /// Posts `batch` until it is answered 200, retrying (like an SDK) while the daemon says 503.
    private static func deliver(_ batch: [TestEvent], with client: IngestClient, into outcomes: Locked<Outcomes>) {
        for _ in 0..<100 {
            do {
                let reply = try client.send(batch)
                if reply.status == 503 {
                    outcomes.withLock { $0.overloadedRetries += 1 }
                    Thread.sleep(forTimeInterval: 0.1)
                    continue
                }
                let result = try IngestResult(reply)
                outcomes.withLock {
                    $0.accepted += result.accepted
                    $0.duplicates += result.duplicates
                    if result.rejected > 0 {
                        $0.failures.append("rejected: \(result)")
                    }
                }
            } catch {
                outcomes.withLock { $0.failures.append(String(describing: error)) }
            }
            return
        }
        outcomes.withLock { $0.failures.append("still 503 after 100 attempts") }
    }
}
