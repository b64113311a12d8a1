import Foundation
import Glibc
import PostgresClient
import Synchronization
import Testing

/// SIGTERM and SIGINT: stop accepting, answer what is in flight, exit 0.
///
/// To have requests in flight for as long as the test needs, with no timing involved, the tests hold a lock
/// on the events table: the writers then block inside their transactions until the test releases it.
@Suite struct ShutdownTests {
    @Test("SIGTERM under load answers every request in flight, stores what it acknowledged, then exits 0")
    func sigtermUnderLoad() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--writers", "2", "--request-timeout", "300s"])
        defer { daemon.stop() }
        let probe = fixture.client(of: daemon)
        #expect(try probe.ingest(TestEvent.impressions(5)).counts == .accepted(5), "warm-up: key cached, writers connected")
        let lock = try TableLock(fixture)
        defer { lock.release() }
        let signalled = Atomic(false)
        let exchanges = Locked([ShutdownExchange]())
        let (key, port, eventsPerRequest) = (fixture.key, daemon.port, 20)

        // Six requests known to be in flight: two in the blocked writers' transactions, four queued behind them.
        let pinned = (0..<6).map { _ in TestEvent.impressions(eventsPerRequest) }
        var clients: [ClientThreads] = []
        for phase in [0..<1, 1..<2, 2..<6] {
            clients.append(ClientThreads(count: phase.count, name: "pinned") { index in
                ShutdownExchange.send(pinned[phase.lowerBound + index], with: IngestClient(port: port, key: key),
                                      signalled: signalled, into: exchanges)
            })
            if phase.count == 1 {
                try lock.waitForBlockedSessions(phase.upperBound)
            }
        }
        try Self.waitForQueuedEvents(4 * eventsPerRequest, probe)
        // Load: SDK-like clients that keep their connection alive and send again as soon as they are answered.
        clients.append(ClientThreads(count: 4, name: "load") { _ in
            let client = IngestClient(port: port, key: key)
            for _ in 0..<1000 {
                let exchange = ShutdownExchange.send(TestEvent.impressions(eventsPerRequest), with: client,
                                                     signalled: signalled, into: exchanges)
                if exchange.status == nil { return }
            }
        })
        try Self.waitForQueuedEvents(8 * eventsPerRequest, probe)

        signalled.store(true, ordering: .sequentiallyConsistent)
        daemon.terminate()
        try Self.waitUntilRefusingConnections(port)
        lock.release()

        let termination = try daemon.waitForExit()
        #expect(clients.allSatisfy { $0.join() }, "every client thread finished")
        #expect(termination == .exited(0), "\(daemon.standardError.suffix(3000))")
        let seen = exchanges.value
        #expect(Set(seen.compactMap(\.status)).isSubset(of: [200, 503]), "\(Set(seen.compactMap(\.status)))")
        #expect(seen.filter { $0.status == 503 }.allSatisfy { $0.retryAfter != nil })
        let stored = try fixture.tables().storedIDs()
        #expect(Set(seen.filter { $0.status == 200 }.flatMap(\.events)).isSubset(of: stored),
                "every acknowledged event is stored")
        #expect(stored.isDisjoint(with: seen.filter { $0.status == 503 }.flatMap(\.events)),
                "nothing of a request answered 503 was stored")

        let pinnedIDs = Set(pinned.joined().map(\.id))
        let pinnedExchanges = seen.filter { Set($0.events).isSubset(of: pinnedIDs) }
        let unanswered = seen.filter { $0.status == nil }
        #expect(pinnedExchanges.count == 6)
        #expect(pinnedExchanges.allSatisfy { $0.status == nil || ($0.status == 200 && $0.accepted == eventsPerRequest) },
                "requests in flight at the signal were committed: \(pinnedExchanges.map(\.status))")
        #expect(pinnedExchanges.allSatisfy { $0.status != nil }, "requests in flight at the signal were answered")
        #expect(unanswered.filter(\.sentBeforeSignal).count == 0, "requests sent before the signal lost their answer")
        #expect(stored.intersection(unanswered.flatMap(\.events)).count == 0, "events of requests that lost their answer were stored")
    }

    @Test("After SIGTERM a request on a kept-alive connection is answered 503 and its connection closed")
    func keptAliveConnectionAfterSignal() throws {
        let fixture = try IngestFixture()
        // One writer, so that a request the daemon takes on is visibly queued behind the blocked one.
        let daemon = try fixture.startDaemon(["--writers", "1", "--request-timeout", "300s"])
        defer { daemon.stop() }
        let keptAlive = fixture.client(of: daemon)
        let probe = fixture.client(of: daemon)
        #expect(try keptAlive.ingest(TestEvent.impressions(5)).counts == .accepted(5))
        #expect(try probe.get("/healthz").status == 200)
        let lock = try TableLock(fixture)
        defer { lock.release() }
        let inFlight = Locked<IngestResult.Counts?>(nil)
        let (key, port) = (fixture.key, daemon.port)
        let pinned = ClientThreads(count: 1, name: "pinned") { _ in
            let result = try? IngestClient(port: port, key: key).ingest(TestEvent.impressions(10))
            inFlight.withLock { $0 = result?.counts }
        }
        try lock.waitForBlockedSessions(1)

        daemon.terminate()
        try Self.waitUntilRefusingConnections(port)
        let late = TestEvent.impressions(7)
        let lateReply = Locked<HTTPReply?>(nil)
        let lateClient = ClientThreads(count: 1, name: "late") { [keptAlive = UncheckedClient(client: keptAlive)] _ in
            let reply = try? keptAlive.client.send(late)
            lateReply.withLock { $0 = reply }
        }
        // Either the late request is answered at once, or the daemon queued it behind the blocked writer.
        try Poll.until("the late request to be answered or queued") { () -> Bool? in
            if lateReply.value != nil {
                return true
            }
            return try MetricsText(probe.get("/metrics").text)["cardinal_ingest_queue_events"] >= 7 ? true : nil
        }
        lock.release()

        #expect(lateClient.join() && pinned.join())
        let reply = try #require(lateReply.value, "the late request got no answer")
        #expect(reply.status == 503)
        #expect(try ErrorBody(reply).code == "shutting_down")
        #expect(reply.header("Retry-After") != nil)
        #expect(reply.header("Connection")?.lowercased() == "close")
        #expect(inFlight.value == .accepted(10), "the request in flight at the signal was answered")
        #expect(try daemon.waitForExit() == .exited(0))
        #expect(try fixture.tables().storedIDs().isDisjoint(with: late.map(\.id)))
    }

    @Test("SIGINT and SIGTERM stop an idle daemon with exit status 0, even right after it reports listening")
    func sigintAndSigterm() throws {
        let fixture = try IngestFixture()
        for signal in [SIGINT, SIGTERM] {
            let daemon = try fixture.startDaemon()
            defer { daemon.stop() }

            daemon.send(signal: signal)

            #expect(try daemon.waitForExit() == .exited(0), "signal \(signal): \(daemon.standardError.suffix(2000))")
        }
    }

    @Test("SIGTERM cancels a fold in progress, here one waiting for a lock, and exits 0 without waiting for it")
    func sigtermCancelsFold() throws {
        let fixture = try IngestFixture()
        let locker = try fixture.database.connect()
        let daemon = try fixture.startDaemon(["--fold-interval", "1s"])
        defer { daemon.stop() }
        // The fold of the events below waits for this lock as long as the transaction holds it, as a long fold
        // would run.
        try locker.executeScript("begin; lock table cardinal.report_user_state in access exclusive mode")
        defer { try? locker.executeScript("rollback") }
        #expect(try fixture.client(of: daemon).ingest(TestEvent.impressions(3)).counts == .accepted(3))
        // Not through the locker: pg_stat_activity is read once per transaction.
        let observer = try fixture.database.connect()
        try Poll.until("the fold to wait for the lock") { () -> Bool? in
            let waiting = try observer.query(
                """
                select count(*) from pg_stat_activity
                where application_name = 'cardinald-report-state-fold' and wait_event_type = 'Lock'
                """
            ).first?.decode(Int.self, at: 0)
            return waiting == 1 ? true : nil
        }

        daemon.terminate()

        #expect(try daemon.waitForExit(timeout: .seconds(20)) == .exited(0), "while the lock is still held")
        #expect(try fixture.tables().eventCount() == 3)
    }

    private static func waitForQueuedEvents(_ count: Int, _ probe: IngestClient) throws {
        try Poll.until("\(count) events to be queued behind the blocked writers") {
            try MetricsText(probe.get("/metrics").text)["cardinal_ingest_queue_events"] == Double(count) ? true : nil
        }
    }

    private static func waitUntilRefusingConnections(_ port: UInt16) throws {
        try Poll.until("the daemon to refuse new connections") { () -> Bool? in
            do {
                _ = try HTTPConnection(port: port)
                return nil
            } catch HTTPConnection.Failure.connectFailed {
                return true
            }
        }
    }
}

/// A client handed to one other thread, which alone uses it from then on.
private struct UncheckedClient {
    let client: IngestClient
}

// The test thread hands the client over and does not touch it again: one thread at a time uses it.
extension UncheckedClient: @unchecked Sendable {}
