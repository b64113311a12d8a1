import CardinalStore
import Foundation
import PostgresClient
import Synchronization
import Testing

@testable import CardinalIngest

#if canImport(Glibc)
import Glibc
#endif

@Suite struct IngestKeyCacheTests {
    private static let app = IngestKeyLookup(appID: 7)

    /// Resolves and waits for the completion.
    private static func resolve(_ cache: IngestKeyCache, _ token: String, timeout: Duration = .seconds(5))
        -> Result<IngestKeyCache.Resolution, any Error>
    {
        let answer = Mutex<Result<IngestKeyCache.Resolution, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        cache.resolve(token, timeout: timeout) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return answer.withLock { $0! }
    }

    @Test("A key lookup stuck on a server that never answers gives up after the caller's timeout")
    func lookupTimesOut() throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let pool = PostgresPool(connectionString: "postgresql://nobody@127.0.0.1:\(silent.port)/nothing?connect_timeout=30",
                                maxConnections: 2, acquireTimeout: .seconds(2))
        defer { pool.shutdown() }
        let cache = IngestKeyCache(
            lookup: { token in try pool.withConnection { try IngestKeyStore(connection: $0).lookup(token: token) } },
            timeToLive: .seconds(5))
        defer { cache.stop() }
        let started = ContinuousClock.now
        #expect(throws: IngestKeyCache.LookupTimedOut.self) {
            try Self.resolve(cache, "token", timeout: .milliseconds(300)).get()
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        // The next request for the same key finds the lookup still running past its time and does not wait.
        let again = ContinuousClock.now
        #expect(throws: IngestKeyCache.LookupTimedOut.self) {
            try Self.resolve(cache, "token", timeout: .milliseconds(300)).get()
        }
        #expect(ContinuousClock.now - again < .milliseconds(100))
    }

    @Test("Twenty requests with the same uncached key wait for one lookup and all get its answer")
    func concurrentLookupsCoalesce() throws {
        let calls = Mutex(0)
        let release = DispatchSemaphore(value: 0)
        let cache = IngestKeyCache(lookup: { _ in
            calls.withLock { $0 += 1 }
            release.wait()
            return Self.app
        }, timeToLive: .seconds(5))
        defer { cache.stop() }
        let answers = Mutex<[IngestKeyCache.Resolution]>([])
        let done = DispatchGroup()
        for _ in 0..<20 {
            done.enter()
            cache.resolve("same", timeout: .seconds(10)) { result in
                if case .success(let resolution) = result { answers.withLock { $0.append(resolution) } }
                done.leave()
            }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(calls.withLock { $0 } == 1)
        #expect(answers.withLock { $0 } == Array(repeating: .app(Self.app), count: 20))
    }

    @Test("An unknown key is remembered briefly: asked once within its time to live, again after it")
    func unknownKeysAreCachedBriefly() throws {
        let calls = Mutex(0)
        let cache = IngestKeyCache(lookup: { _ in calls.withLock { $0 += 1 }; return nil },
                                   timeToLive: .seconds(60), unknownTimeToLive: .milliseconds(200))
        defer { cache.stop() }
        #expect(try Self.resolve(cache, "bad").get() == .unknown)
        #expect(try Self.resolve(cache, "bad").get() == .unknown)
        #expect(calls.withLock { $0 } == 1)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try Self.resolve(cache, "bad").get() == .unknown)
        #expect(calls.withLock { $0 } == 2)
    }

    @Test("A flood of distinct unknown keys evicts unknown keys one at a time and never a known key")
    func floodOfUnknownKeysKeepsKnownKeys() throws {
        let asked = Mutex<[String]>([])
        let cache = IngestKeyCache(lookup: { token in
            asked.withLock { $0.append(token) }
            return token == "good" ? Self.app : nil
        }, timeToLive: .seconds(60), unknownTimeToLive: .seconds(60), maxEntries: 4)
        defer { cache.stop() }
        #expect(try Self.resolve(cache, "good").get() == .app(Self.app))
        for index in 0..<100 {
            _ = Self.resolve(cache, "random-\(index)")
        }
        #expect(cache.cached("good") == .app(Self.app))
        // The last four unknown keys are still remembered; the fifth from last was evicted.
        #expect((96..<100).allSatisfy { cache.cached("random-\($0)") == .unknown })
        #expect(cache.cached("random-95") == nil)
        #expect(asked.withLock { $0.count } == 101)
    }
}

/// A TCP port on loopback that takes connections (the kernel completes the handshake) and never says a word.
private struct SilentServer {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
