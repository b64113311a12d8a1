import Foundation
import PostgresClient
import Testing

@testable import CardinalIngest

#if canImport(Glibc)
import Glibc
#endif

@Suite struct IngestKeyCacheTests {
    @Test("A key lookup stuck on a server that never answers gives up after the caller's timeout")
    func lookupTimesOut() throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let pool = PostgresPool(connectionString: "postgresql://nobody@127.0.0.1:\(silent.port)/nothing?connect_timeout=30",
                                maxConnections: 2, acquireTimeout: .seconds(2))
        defer { pool.shutdown() }
        let cache = IngestKeyCache(pool: pool, timeToLive: .seconds(5))
        let started = ContinuousClock.now
        #expect(throws: IngestKeyCache.LookupTimedOut.self) {
            try cache.resolve("token", timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        // The next request for the same key finds the lookup still running past its time and does not wait.
        let again = ContinuousClock.now
        #expect(throws: IngestKeyCache.LookupTimedOut.self) {
            try cache.resolve("token", timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - again < .milliseconds(100))
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
