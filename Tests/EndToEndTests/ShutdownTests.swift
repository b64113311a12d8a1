import Foundation
import Glibc
import PostgresClient
import Synchronization
import Testing

/// SIGTERM and SIGINT: stop accepting, answer what is in flight, exit 0.
@Suite struct ShutdownTests {
    /// What became of one request.
    private struct Exchange: Sendable {
        /// Whether the whole request had been sent before the test signalled the daemon.
        let sentBeforeSignal: Bool
        /// The status, or `nil` when the connection failed.
        let status: Int?
        let retryAfter: String?
        let accepted: Int
        let events: [UUID]
        let failure: String?
    }

    @Test("SIGTERM under load answers every request in flight, stores what it acknowledged, then exits 0")
    func sigtermUnderLoad() throws {
        let fixture = try IngestFixture()
        let daemon = try fixture.startDaemon(["--writers", "2", "--request-timeout", "300s"])
        defer { daemon.stop() }
        let probe = fixture.client(of: daemon)
        #expect(try probe.ingest(TestEvent.impressions(5)).counts == .accepted(5), "warm-up: key cached, writers connected")

        // Hold the events table so that writers block inside their transactions: requests then stay in flight
        // for as long as the test needs, with no timing involved.
        let blocker = try fixture.database.connect()
        try blocker.executeScript("begin; lock table cardinal.events in share mode")
        // pg_stat_activity is read once per transaction, so the waiting writers are watched from another session.
        let observer = try fixture.database.connect()
        var released = false
        defer {
            if !released { _ = try? blocker.executeScript("rollback") }
        }
        let signalled = Atomic(false)
        let exchanges = Locked([Exchange]())
        let key = fixture.key, port = daemon.port, eventsPerRequest = 20

        let pinned = (0..<6).map { _ in TestEvent.impressions(eventsPerRequest) }
        var clients: [ClientThreads] = []
        for phase in [0..<1, 1..<2, 2..<6] {
            clients.append(ClientThreads(count: phase.count, name: "pinned") { index in
                let events = pinned[phase.lowerBound + index]
                Self.send(events, port: port, key: key, signalled: signalled, into: exchanges)
            })
            if phase.count == 1 {
                try Poll.until("\(phase.upperBound) writer(s) to wait for the lock") {
                    try Self.sessionsWaitingForLocks(observer) == phase.upperBound ? true : nil
                }
            }
        }
        try Poll.until("the last four requests to be queued behind the blocked writers") {
            try MetricsText(probe.get("/metrics").text)["cardinal_ingest_queue_events"] == Double(4 * eventsPerRequest) ? true : nil
        }
        let load = ClientThreads(count: 4, name: "load") { _ in
            var sent = 0
            while sent < 1000 {
                sent += 1
                let outcome = Self.send(TestEvent.impressions(eventsPerRequest), port: port, key: key,
                                        signalled: signalled, into: exchanges)
                if outcome.status == nil { return }
            }
        }

        signalled.store(true, ordering: .sequentiallyConsistent)
        daemon.terminate()
        try Poll.until("the daemon to refuse new connections") { () -> Bool? in
            do {
                _ = try HTTPConnection(port: port)
                return nil
            } catch HTTPConnection.Failure.connectFailed {
                return true
            }
        }
        try blocker.executeScript("commit")
        released = true

        let termination = try daemon.waitForExit()
        #expect(clients.allSatisfy { $0.join() } && load.join(), "every client thread finished")
        #expect(termination == .exited(0), "\(daemon.standardError.suffix(3000))")

        let seen = exchanges.value
        let pinnedIDs = Set(pinned.joined().map(\.id))
        let pinnedExchanges = seen.filter { Set($0.events).isSubset(of: pinnedIDs) }
        #expect(pinnedExchanges.count == 6)
        #expect(pinnedExchanges.allSatisfy { $0.status == 200 && $0.accepted == eventsPerRequest },
                "requests in flight at the signal were committed and answered: \(pinnedExchanges.map(\.status))")
        let unanswered = seen.filter { $0.sentBeforeSignal && $0.status == nil }
        #expect(unanswered.isEmpty, """
            \(unanswered.count) requests sent before the signal lost their answer: \
            \(Set(unanswered.compactMap(\.failure)))
            """)
        let statuses = Set(seen.compactMap(\.status))
        #expect(statuses.isSubset(of: [200, 503]), "\(statuses)")
        #expect(seen.filter { $0.status == 503 }.allSatisfy { $0.retryAfter != nil })

        let stored = try fixture.tables().storedIDs()
        let acknowledged = seen.filter { $0.status == 200 }.flatMap(\.events)
        #expect(Set(acknowledged).isSubset(of: stored), "every acknowledged event is stored")
        #expect(stored.isDisjoint(with: seen.filter { $0.status != 200 }.flatMap(\.events)),
                "nothing of a request answered 503 or not at all was stored")
    }

    @Test("SIGINT stops an idle daemon with exit status 0, as SIGTERM does")
    func sigintAndSigterm() throws {
        let fixture = try IngestFixture()
        for signal in [SIGINT, SIGTERM] {
            let daemon = try fixture.startDaemon()
            defer { daemon.stop() }
            #expect(try fixture.client(of: daemon).get("/healthz").status == 200)

            daemon.send(signal: signal)

            #expect(try daemon.waitForExit() == .exited(0), "signal \(signal): \(daemon.standardError.suffix(2000))")
        }
    }

    /// Sends one request on a connection of its own and notes what became of it.
    @discardableResult
    private static func send(
        _ events: [TestEvent], port: UInt16, key: String, signalled: borrowing Atomic<Bool>, into exchanges: Locked<[Exchange]>
    ) -> Exchange {
        let client = IngestClient(port: port, key: key)
        var sentBeforeSignal = false
        let exchange: Exchange
        do {
            let reply = try client.post(body: TestEvent.jsonBatch(events)) {
                sentBeforeSignal = !signalled.load(ordering: .sequentiallyConsistent)
            }
            let accepted = reply.status == 200 ? (try? IngestResult(reply))?.accepted ?? -1 : 0
            exchange = Exchange(sentBeforeSignal: sentBeforeSignal, status: reply.status,
                                retryAfter: reply.header("Retry-After"), accepted: accepted, events: events.map(\.id),
                                failure: nil)
        } catch {
            exchange = Exchange(sentBeforeSignal: sentBeforeSignal, status: nil, retryAfter: nil, accepted: 0,
                                events: events.map(\.id), failure: String(describing: error))
        }
        exchanges.withLock { $0.append(exchange) }
        return exchange
    }

    /// Sessions of this database, other than `connection`'s, waiting for a lock.
    private static func sessionsWaitingForLocks(_ connection: PostgresConnection) throws -> Int {
        try connection.query(
            """
            select count(*) from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
            """
        )[0].decode(Int.self, at: 0)
    }
}
