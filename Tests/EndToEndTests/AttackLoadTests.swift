import Foundation
import Gzip
import Testing
import TestSupport

/// The daemon under each attack of issue 10, for a few seconds on loopback, with its default limits: its
/// resident memory stays under the 64 MB goal and a well-behaved client of another app keeps getting 200.
/// The attackers that open many connections do so from other loopback addresses (127.0.0.2, 127.0.0.3), as
/// they would from other hosts, so the per-IP connection limit is theirs, not the well-behaved client's.
@Suite(.serialized) struct AttackLoadTests {
    /// The daemon's memory goal (DESIGN.md).
    static let memoryGoal = 64 * 1024 * 1024
    /// How long each attack lasts.
    static let attackSeconds = 2.0

    enum Attack: String, CaseIterable, CustomTestStringConvertible {
        case gzipBomb = "gzip bombs of zero lines"
        case largeBodies = "8 MB bodies from a valid key, six at once"
        case slowBodyWithBadKey = "slow bodies with a bad key"
        case unknownTokens = "thousands of distinct unknown keys"
        case floodingKey = "a valid key flooding"

        var testDescription: String { rawValue }
    }

    @Test("The daemon stays under 64 MB resident while a well-behaved client keeps getting 200", arguments: Attack.allCases)
    func underAttack(_ attack: Attack) throws {
        let fixture = try IngestFixture()
        try CardinalCLI.createApp("attacker", databaseURL: fixture.database.url)
        let attackerKey = try CardinalCLI.createKey(app: "attacker", databaseURL: fixture.database.url)
        _ = try CardinalCLI.succeed(["apps", "limits", "attacker", "--requests-per-second", "100",
                                     "--events-per-second", "2000", "--database-url", fixture.database.url])
        let daemon = try fixture.startDaemon()
        defer { daemon.stop() }
        if attack == .gzipBomb {
            _ = Self.bombs
        }
        // The well-behaved app's key is looked up once before the clock starts, as in steady traffic.
        _ = try fixture.client(of: daemon).ingest(TestEvent.impressions(1))
        let memory = ResidentMemory(processIdentifier: daemon.processIdentifier)
        let before = memory.current

        memory.start()
        let stopAt = Date().addingTimeInterval(Self.attackSeconds)
        let wellBehaved = Locked<[Int]>([])
        let attackers = Locked<[Int: Int]>([:])
        let port = daemon.port
        let goodKey = fixture.key
        let good = ClientThreads(count: 1, name: "well-behaved") { _ in
            let client = IngestClient(port: port, key: goodKey)
            while Date() < stopAt {
                let status = (try? client.send(TestEvent.impressions(5)).status) ?? 0
                wellBehaved.withLock { $0.append(status) }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let attacking = Self.run(attack, port: port, key: attackerKey, until: stopAt, statuses: attackers)
        #expect(good.join(timeout: .seconds(120)))
        #expect(attacking.join(timeout: .seconds(120)))
        let peak = memory.stop()

        let statuses = wellBehaved.value
        let attackStatuses = attackers.value
        print("attack \(attack.rawValue): resident before \(before / 1024) KiB, peak \(peak / 1024) KiB; "
              + "well-behaved requests \(statuses.count); attacker answers \(attackStatuses.sorted { $0.key < $1.key })")
        #expect(peak < Self.memoryGoal, "peak resident memory \(peak / 1024) KiB under \(attack.rawValue)")
        #expect(statuses.count >= 5, "the well-behaved client hardly ran")
        #expect(statuses.allSatisfy { $0 == 200 }, "well-behaved statuses: \(statuses)")
        #expect(attackStatuses.values.reduce(0, +) > 0, "the attack got no answers at all")
        #expect(attackStatuses.keys.allSatisfy { $0 != 200 || attack == .floodingKey })
    }

    /// 8 Mi lines of "0" (16 MiB, the inflated limit) and twice as many (past it), each in about 16 or 32 KiB
    /// of gzip. Made once, before any clock starts.
    static let bombs: [[UInt8]] = [8, 16].map { megalines in
        let lines = megalines << 20
        let text = [UInt8](unsafeUninitializedCapacity: lines * 2) { buffer, count in
            for line in 0..<lines {
                buffer[2 * line] = UInt8(ascii: "0")
                buffer[2 * line + 1] = UInt8(ascii: "\n")
            }
            count = lines * 2
        }
        return Gzip.deflate(text, level: 9)
    }

    /// Starts the attackers; each records the statuses it got (0: the connection was closed without one).
    private static func run(
        _ attack: Attack, port: UInt16, key: String, until stopAt: Date, statuses: Locked<[Int: Int]>
    ) -> ClientThreads {
        let record: @Sendable (Int) -> Void = { status in statuses.withLock { $0[status, default: 0] += 1 } }
        switch attack {
        case .gzipBomb:
            let bombs = Self.bombs
            return ClientThreads(count: 4, name: "gzip-bomb") { index in
                let client = IngestClient(port: port, key: key)
                while Date() < stopAt {
                    // Sent as compressed already, with the header that says so.
                    let status = (try? client.post(body: bombs[index % 2], contentType: "application/x-ndjson",
                                                   headers: [("Content-Encoding", "gzip")]).status) ?? 0
                    record(status)
                }
            }
        case .largeBodies:
            let body = Array(String(repeating: "{}\n", count: 8 * 1024 * 1024 / 3).utf8)
            return ClientThreads(count: 6, name: "large-body") { _ in
                let client = IngestClient(port: port, key: key)
                while Date() < stopAt {
                    record((try? client.post(body: body, contentType: "application/x-ndjson").status) ?? 0)
                }
            }
        case .slowBodyWithBadKey:
            return ClientThreads(count: 64, name: "trickle") { index in
                while Date() < stopAt {
                    guard let socket = try? RawSocket(port: port, sourceAddress: "127.0.0.2", timeout: 10) else {
                        record(-1)
                        continue
                    }
                    socket.send(Array(("POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bad-\(index)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 8388608\r\n\r\n{\"events\":[").utf8))
                    for _ in 0..<3 where socket.send([UInt8(ascii: " ")]) {
                        Thread.sleep(forTimeInterval: 0.1)
                    }
                    record(socket.readStatus() ?? 0)
                }
            }
        case .unknownTokens:
            return ClientThreads(count: 16, name: "unknown-token") { _ in
                while Date() < stopAt {
                    guard let socket = try? RawSocket(port: port, sourceAddress: "127.0.0.3", timeout: 10) else {
                        record(-1)
                        continue
                    }
                    let body = #"{"events":[]}"#
                    socket.send(Array(("POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cdl_\(UUID().uuidString)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8))
                    record(socket.readStatus() ?? 0)
                }
            }
        case .floodingKey:
            let batch = TestEvent.impressions(100)
            return ClientThreads(count: 8, name: "flood") { _ in
                let client = IngestClient(port: port, key: key)
                while Date() < stopAt {
                    record((try? client.send(batch).status) ?? 0)
                }
            }
        }
    }
}
