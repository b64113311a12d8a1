/// Settings of an ``HTTPServer``: where it listens and how much it lets each client use.
///
/// The defaults suit a daemon behind a local reverse proxy; tests use `port = 0`.
public struct HTTPServerConfiguration: Sendable {
    /// Numeric IPv4 or IPv6 address to listen on (`"127.0.0.1"`, `"0.0.0.0"`, `"::1"`, `"::"`).
    public var host: String = "127.0.0.1"
    /// TCP port to listen on; `0` lets the kernel choose a free port (read it back with ``HTTPServer/port``).
    public var port: UInt16 = 8080
    /// Most connections served at once (`MHD_OPTION_CONNECTION_LIMIT`); suspended requests count too.
    public var connectionLimit: Int = 1024
    /// Most connections from one IP address at once (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); more are closed
    /// as soon as they are accepted. `0` turns the limit off (behind a reverse proxy every client has the
    /// proxy's address).
    public var perIPConnectionLimit: Int = 128
    /// Idle time after which a connection is closed (`MHD_OPTION_CONNECTION_TIMEOUT`), rounded up to whole
    /// seconds; zero disables the timeout.
    public var connectionTimeout: Duration = .seconds(30)
    /// How long a request may take in all, from the moment its connection was ready for it (accepted, or done
    /// with the previous request) to its response, suspended or not: past it, a request waiting for its
    /// handler or its admission gets ``deadlineResponse`` and one still sending its body is cut off, so a
    /// client that trickles a body cannot hold a connection slot for longer. Zero (the default) turns it off:
    /// how long a request may take is the application's to say.
    public var requestDeadline: Duration = .zero
    /// What a request that reached ``requestDeadline`` while waiting is answered.
    public var deadlineResponse = HTTPResponse.text(503, "the request took longer than the server allows\n")
    /// Bytes of libmicrohttpd's per-connection memory pool (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`): request
    /// headers must fit in it, and it bounds how much body arrives per read.
    public var connectionMemoryLimit: Int = 64 * 1024
    /// Largest request body accepted; a larger one is answered ``bodyTooLargeResponse``.
    public var maxBodyBytes: Int = 8 * 1024 * 1024
    /// What a request whose body is larger than ``maxBodyBytes`` (declared or, without `Content-Length`, as
    /// received) is answered: a `413 Content Too Large`.
    public var bodyTooLargeResponse = HTTPResponse.text(413, "request body too large\n")
    /// `0` runs one internal epoll thread; a positive value runs that many threads
    /// (`MHD_OPTION_THREAD_POOL_SIZE`), each with its own epoll set.
    public var threadPoolSize: Int = 0
    /// Receives libmicrohttpd's own error messages (`MHD_OPTION_EXTERNAL_LOGGER`), one line each, without
    /// the trailing newline; `nil` turns them off. Called on server threads.
    public var logger: (@Sendable (String) -> Void)?

    /// A configuration with the defaults above.
    public init() {}
}
