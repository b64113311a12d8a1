/// Why an ``HTTPServer`` could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `host` is not a numeric IPv4 or IPv6 address.
    case invalidHost(String)
    /// A setting is outside what libmicrohttpd accepts.
    case invalidConfiguration(String)
    /// A socket call (`socket`, `bind`, `listen`, …) failed for `host:port` with `errno`.
    case socketFailed(operation: String, host: String, port: UInt16, errno: Int32, message: String)
    /// `MHD_start_daemon_va` refused to start; `detail` holds libmicrohttpd's last logged message, if any.
    case daemonStartFailed(host: String, port: UInt16, detail: String)

    /// A one-line explanation naming the address.
    public var description: String {
        switch self {
        case .invalidHost(let host):
            "cannot listen on '\(host)': not a numeric IPv4 or IPv6 address"
        case .invalidConfiguration(let message):
            "invalid HTTP server configuration: \(message)"
        case let .socketFailed(operation, host, port, errno, message):
            "cannot listen on \(Self.address(host, port)): \(operation) failed: \(message) (errno \(errno))"
        case let .daemonStartFailed(host, port, detail):
            "cannot start the HTTP server on \(Self.address(host, port))"
                + (detail.isEmpty ? "" : ": \(detail)")
        }
    }

    private static func address(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
