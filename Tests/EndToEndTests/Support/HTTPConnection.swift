import Foundation
import Glibc

/// A blocking HTTP/1.1 client over one TCP connection to 127.0.0.1, with keep-alive.
///
/// Raw sockets rather than URLSession, because the crash and shutdown tests must know exactly what happened
/// to a request: never connected, connected but the request could not be sent, or sent and closed without
/// an answer. Every read and write gives up after `timeout`, so a hanging daemon fails a test instead of
/// hanging the suite.
final class HTTPConnection {
    /// What went wrong with an exchange.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The connection could not be opened (`ECONNREFUSED` once the daemon stopped listening).
        case connectFailed(errno: Int32)
        /// The connection broke before a response arrived; the request may or may not have been read.
        case closedWithoutResponse(detail: String)
        /// No response within the timeout.
        case timedOut
        /// The bytes received are not an HTTP response.
        case malformed(String)

        var description: String {
            switch self {
            case let .connectFailed(code): "connect failed: \(String(cString: strerror(code)))"
            case let .closedWithoutResponse(detail): "connection closed without a response (\(detail))"
            case .timedOut: "no response within the timeout"
            case let .malformed(text): "malformed response: \(text)"
            }
        }
    }

    private var descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`.
    init(port: UInt16, timeout: Duration = .seconds(120)) throws(Failure) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw .connectFailed(errno: errno)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw .connectFailed(errno: code)
        }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Whether the connection can carry another request.
    var isOpen: Bool { descriptor >= 0 }

    /// Sends one request and reads its response. A server may answer before it has read the whole body
    /// (413) and close: a failed send is then followed by an attempt to read that answer.
    /// - Parameter afterSending: called once the whole request is in the kernel's hands.
    func exchange(
        method: String, path: String, headers: [(String, String)], body: [UInt8], afterSending: () -> Void = {}
    ) throws(Failure) -> HTTPReply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        if method == "POST" || !body.isEmpty {
            head += "Content-Length: \(body.count)\r\n"
        }
        let sendError = send(Array((head + "\r\n").utf8) + body)
        if sendError == nil {
            afterSending()
        }
        do {
            let reply = try readReply()
            if reply.header("Connection")?.lowercased() == "close" {
                close()
            }
            return reply
        } catch {
            close()
            if let sendError, case .closedWithoutResponse = error {
                throw .closedWithoutResponse(detail: "send failed: \(String(cString: strerror(sendError)))")
            }
            throw error
        }
    }

    /// Closes the connection; later exchanges fail.
    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Writes everything; returns the `errno` of a failed write.
    private func send(_ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0, errno == EINTR {
                continue
            }
            guard written > 0 else {
                return descriptor < 0 ? EBADF : errno
            }
            offset += written
        }
        return nil
    }

    private func readReply() throws(Failure) -> HTTPReply {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd = buffer.firstRange(of: separator)?.lowerBound
        while headEnd == nil {
            try fill()
            headEnd = buffer.firstRange(of: separator)?.lowerBound
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + separator.count)
        var lines = head.components(separatedBy: "\r\n")
        let statusParts = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw .malformed("bad status line in \(head)")
        }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var reply = HTTPReply(status: status, headers: headers, body: [])
        if let length = reply.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length {
                try fill()
            }
            reply.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else if reply.header("Transfer-Encoding") != nil {
            throw .malformed("chunked responses are not expected from cardinald")
        } else {
            while (try? fill()) != nil {}
            reply.body = buffer
            buffer = []
            close()
        }
        return reply
    }

    private func fill() throws(Failure) {
        guard descriptor >= 0 else {
            throw .closedWithoutResponse(detail: "connection already closed")
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return
            }
            if count == 0 {
                throw .closedWithoutResponse(detail: buffer.isEmpty ? "end of stream" : "end of stream mid-response")
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: throw .timedOut
            case let code: throw .closedWithoutResponse(detail: String(cString: strerror(code)))
            }
        }
    }
}
