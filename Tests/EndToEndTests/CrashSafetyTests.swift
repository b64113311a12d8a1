import Foundation
import Testing

/// `kill -9` under load: a 200 means committed, and retries after a restart never double an event.
@Suite struct CrashSafetyTests {
    /// What the clients saw before the crash.
    private struct Ledger: Sendable {
        /// Batches (by number) answered 200, with the number of their events the daemon stored.
        var acknowledged: [Int: Int] = [:]
        /// Batches with no 200: a transport failure or a 503.
        var unacknowledged: Set<Int> = []
        /// Anything else, which is a failure of the test.
        var unexpected: [String] = []
    }

    @Test("Every event acknowledged before a kill -9 is stored, and retrying the rest stores each event exactly once")
    func killDuringLoad() throws {
        let fixture = try IngestFixture()
        let (clients, batchesPerClient, eventsPerBatch) = (6, 100, 20)
        let batches = (0..<clients * batchesPerClient).map { _ in TestEvent.impressions(eventsPerBatch) }
        let ledger = Locked(Ledger())
        let key = fixture.key

        let first = try fixture.startDaemon()
        defer { first.stop() }
        let load = ClientThreads(count: clients, name: "crash-client") { [port = first.port] client in
            let connection = IngestClient(port: port, key: key)
            for number in client * batchesPerClient..<(client + 1) * batchesPerClient {
                Self.attempt(number, batches[number], with: connection, into: ledger)
            }
        }
        try Poll.until("some batches to be acknowledged", interval: .milliseconds(5)) {
            ledger.withLock { $0.acknowledged.count >= 30 } ? true : nil
        }
        try first.crash()
        #expect(load.join(), "the clients finished")

        let beforeRestart = ledger.value
        #expect(beforeRestart.unexpected.isEmpty, "\(beforeRestart.unexpected.prefix(5))")
        #expect(!beforeRestart.unacknowledged.isEmpty, "the crash left requests unanswered")
        #expect(beforeRestart.acknowledged.count + beforeRestart.unacknowledged.count == batches.count)

        let second = try fixture.startDaemon()
        defer { second.stop() }
        let tables = try fixture.tables()
        let storedAfterCrash = try tables.storedIDs()
        let acknowledgedIDs = Set(beforeRestart.acknowledged.keys.flatMap { batches[$0].map(\.id) })
        #expect(acknowledgedIDs.isSubset(of: storedAfterCrash), "every event that got a 200 survived the crash")
        #expect(try tables.eventCount() == storedAfterCrash.count)

        let retry = IngestClient(port: second.port, key: key)
        var (retriedAccepted, retriedDuplicates) = (0, 0)
        for number in beforeRestart.unacknowledged.sorted() {
            let result = try retry.ingest(batches[number])
            retriedAccepted += result.accepted
            retriedDuplicates += result.duplicates
        }

        let everyID = Set(batches.joined().map(\.id))
        let acceptedBeforeCrash = beforeRestart.acknowledged.values.reduce(0, +)
        #expect(try tables.storedIDs() == everyID)
        #expect(try tables.eventCount() == everyID.count, "each event is stored exactly once")
        #expect(retriedDuplicates == storedAfterCrash.count - acknowledgedIDs.count,
                "events committed but not acknowledged before the crash come back as duplicates")
        #expect(acceptedBeforeCrash + retriedAccepted + retriedDuplicates == everyID.count)
    }

    /// Sends one batch and notes what became of it.
    private static func attempt(_ number: Int, _ batch: [TestEvent], with client: IngestClient, into ledger: Locked<Ledger>) {
        do {
            let reply = try client.send(batch)
            switch reply.status {
            case 200:
                let result = try IngestResult(reply)
                ledger.withLock {
                    if result.accepted + result.duplicates == batch.count && result.rejected == 0 {
                        $0.acknowledged[number] = result.accepted
                    } else {
                        $0.unexpected.append("batch \(number): \(result)")
                    }
                }
            case 503:
                ledger.withLock { _ = $0.unacknowledged.insert(number) }
            default:
                ledger.withLock { $0.unexpected.append("batch \(number): \(reply.status) \(reply.text)") }
            }
        } catch is HTTPConnection.Failure {
            ledger.withLock { _ = $0.unacknowledged.insert(number) }
        } catch {
            ledger.withLock { $0.unexpected.append("batch \(number): \(error)") }
        }
    }
}
