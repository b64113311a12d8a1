import Foundation
import Glibc

/// A bare TCP connection to the daemon for requests no polite client sends: a head without its body, a body
/// trickled a byte at a time, from another loopback address. Reads give up after `timeout`.
final class RawSocket {
    private var descriptor: Int32

    /// Connects to `127.0.0.1:port` from `sourceAddress` (any `127.x.y.z` is this host on Linux).
    init(port: UInt16, sourceAddress: String = "127.0.0.1", timeout: Int = 30) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        source.sin_addr.s_addr = inet_addr(sourceAddress)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &source) { source in
            withUnsafePointer(to: &address) { address in
                source.withMemoryRebound(to: sockaddr.self, capacity: 1) { source in
                    address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        bind(descriptor, source, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                            && connect(descriptor, address, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }
        }
        guard descriptor >= 0, connected else {
            let code = errno
            Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Sends `bytes`; `false` once the daemon has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// The status code of the response, read from its first line; `nil` when the connection closed or the
    /// read timed out first.
    func readStatus() -> Int? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            received += chunk[..<count]
        }
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }
}
