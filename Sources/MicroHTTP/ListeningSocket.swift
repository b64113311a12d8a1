import Glibc

/// A bound, listening TCP socket handed to libmicrohttpd with `MHD_OPTION_LISTEN_SOCKET`.
///
/// We bind it ourselves rather than pass `MHD_OPTION_SOCK_ADDR` for two reasons: `bind`'s `errno` reaches the
/// caller exactly (libmicrohttpd only logs it), and `getsockname` tells which port `0` became, which
/// libmicrohttpd reports only through the variadic `MHD_get_daemon_info` that Swift cannot call.
///
/// OWNERSHIP: `open` returns a descriptor the caller owns until it is given to `MHD_start_daemon_va`; from
/// then on libmicrohttpd owns it (it closes it in `MHD_stop_daemon`, or hands it back from
/// `MHD_quiesce_daemon`).
struct ListeningSocket {
    let descriptor: Int32
    let port: UInt16
    let isIPv6: Bool

    /// Binds `host:port` and starts listening.
    static func open(host: String, port: UInt16) throws(HTTPServerError) -> ListeningSocket {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if let ipv4 = parseIPv4(host, port: port) {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv4, as: sockaddr_in.self) }
            (family, length) = (AF_INET, socklen_t(MemoryLayout<sockaddr_in>.size))
        } else if let ipv6 = parseIPv6(host, port: port) {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv6, as: sockaddr_in6.self) }
            (family, length) = (AF_INET6, socklen_t(MemoryLayout<sockaddr_in6>.size))
        } else {
            throw .invalidHost(host)
        }

        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        func failure(_ operation: String) -> HTTPServerError {
            let code = errno
            if descriptor >= 0 { close(descriptor) }
            return .socketFailed(
                operation: operation, host: host, port: port, errno: code, message: String(cString: strerror(code)))
        }
        guard descriptor >= 0 else { throw failure("socket") }
        // SO_REUSEADDR only lets a restarted daemon bind while old connections sit in TIME_WAIT; on Linux it
        // does not let two sockets listen on one port, so an occupied port still fails with EADDRINUSE.
        var one: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt(SO_REUSEADDR)")
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw failure("bind") }
        guard listen(descriptor, SOMAXCONN) == 0 else { throw failure("listen") }

        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        guard named == 0 else { throw failure("getsockname") }
        let networkPort = withUnsafeBytes(of: &actual) { bytes in
            family == AF_INET
                ? bytes.load(as: sockaddr_in.self).sin_port : bytes.load(as: sockaddr_in6.self).sin6_port
        }
        return ListeningSocket(descriptor: descriptor, port: UInt16(bigEndian: networkPort), isIPv6: family == AF_INET6)
    }

    private static func parseIPv4(_ host: String, port: UInt16) -> sockaddr_in? {
        var address = sockaddr_in()
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        return address
    }

    private static func parseIPv6(_ host: String, port: UInt16) -> sockaddr_in6? {
        var address = sockaddr_in6()
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        return address
    }
}
