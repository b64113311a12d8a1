import Foundation
import Glibc
import MicroHTTP

/// A blocking HTTP/1.1 client over one loopback TCP connection, for requests URLSession will not send
/// (several on one connection, chunked bodies, heads without bodies).
final class RawHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Response {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private var descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`. Reads give up after 60 s so a broken server fails the test instead of
    /// hanging it.
    /// - Parameter sourceAddress: the loopback address to connect from (`127.0.0.2`: another client IP).
    init(port: UInt16, sourceAddress: String? = nil) throws {
        descriptor = try Self.connect(port: port, sourceAddress: sourceAddress).get()
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close()
    }

    /// Tries to connect to `127.0.0.1:port`; the failure carries `errno`.
    static func connect(port: UInt16, sourceAddress: String? = nil) -> Result<Int32, Failure> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure(description: "socket: errno \(errno)")) }
        if let sourceAddress {
            var source = sockaddr_in()
            source.sin_family = sa_family_t(AF_INET)
            source.sin_addr.s_addr = inet_addr(sourceAddress)
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                return .failure(Failure(description: "bind \(sourceAddress): errno \(code)"))
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            return .failure(Failure(description: "connect: errno \(code)"))
        }
        return .success(fd)
    }

    /// The `errno` of a connection attempt to `127.0.0.1:port`, or `nil` when it connected.
    static func connectErrno(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0 ? nil : errno
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += written
        }
    }

    /// Sends a request with `Host` and, when there is a body, `Content-Length`.
    func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + body)
    }

    /// Reads one response whose length is given by `Content-Length` (libmicrohttpd always sends it for
    /// buffer responses).
    func readResponse() throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: separator)?.lowerBound
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + separator.count)
        var lines = head.components(separatedBy: "\r\n")
        let statusParts = lines.removeFirst().split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line in \(head)")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = Int(headers["Content-Length"] ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether the server closed the connection: a read returns end of file or a reset, not data and not
    /// the read timeout.
    func readsEndOfStream() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            throw Failure(description: count == 0 ? "connection closed by server" : "recv: errno \(errno)")
        }
        buffer.append(contentsOf: chunk[..<count])
    }
}

/// SAFETY: a test uses a client from one thread at a time; it only hands the client over (test task →
/// reader thread), never shares it between threads running at once.
extension RawHTTPClient: @unchecked Sendable {}
