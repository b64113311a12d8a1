import Foundation
import Synchronization

/// Decides from the request head alone, before any body is read: return a response (`401`, `415`, `413`…)
/// to answer at once, or `nil` to read the body and call the ``HTTPHandler``. Runs on a server thread; keep
/// it cheap.
public typealias HTTPHeadHandler = @Sendable (_ method: String, _ path: String, _ headers: HTTPHeaders) -> HTTPResponse?

/// Decides, from the head of a request that the ``HTTPHeadHandler`` let through, whether its body is read at all:
/// call ``HTTPAdmission/admit(note:)`` or ``HTTPAdmission/refuse(_:)`` once, now or later from any thread
/// (after a database lookup, say). Meanwhile the connection waits suspended, holding no thread.
public typealias HTTPAdmissionHandler = @Sendable (_ method: String, _ path: String, _ headers: HTTPHeaders,
                                                   _ admission: HTTPAdmission) -> Void

/// Handles a complete request on a server thread. Call ``HTTPResponder/respond(_:)`` before returning, or
/// later from any thread; the connection waits suspended meanwhile, holding no thread.
public typealias HTTPHandler = @Sendable (HTTPRequest, HTTPResponder) -> Void

/// An HTTP/1.1 server on libmicrohttpd with keep-alive, bounded bodies and deferred responses.
///
/// ```swift
/// let server = try HTTPServer(configuration: .init()) { request, responder in
///     responder.respond(.text(200, "hello\n"))
/// }
/// ```
public final class HTTPServer: Sendable {
    private let core: ServerCore
    private let daemon: Mutex<MHDDaemon?>

    /// The TCP port the server listens on (the kernel's choice when the configuration asked for `0`).
    public let port: UInt16

    /// Binds the address and starts serving on libmicrohttpd's threads.
    ///
    /// - Parameters:
    ///   - configuration: address, limits and threads.
    ///   - headHandler: answers a request from its head alone, or returns `nil` to go on.
    ///   - admissionHandler: admits or refuses a request from its head, possibly later, before its body is read.
    ///   - handler: handles each complete request.
    /// - Throws: ``HTTPServerError``, naming `host:port` and `errno` when the address cannot be bound.
    public init(
        configuration: HTTPServerConfiguration, headHandler: HTTPHeadHandler? = nil,
        admissionHandler: HTTPAdmissionHandler? = nil, handler: @escaping HTTPHandler
    ) throws {
        try Self.validate(configuration)
        let core = ServerCore(configuration: configuration, headHandler: headHandler,
                              admissionHandler: admissionHandler, handler: handler)
        let socket = try ListeningSocket.open(host: configuration.host, port: configuration.port)
        let started = try MHDDaemon.start(
            core: core, socket: socket, configuration: configuration, host: configuration.host)
        self.core = core
        self.port = socket.port
        self.daemon = Mutex(started)
        core.watchdog.start()
    }

    deinit {
        stop()
    }

    /// Number of open client connections, including idle keep-alive and suspended ones.
    public var activeConnections: Int {
        core.connections.count
    }

    /// Stops accepting connections (`MHD_quiesce_daemon`); connections already open are still served, and
    /// new connection attempts are refused. Use it to drain before ``stop()``.
    public func quiesce() {
        daemon.withLock { $0?.quiesce() }
    }

    /// Waits until every request the server has begun is complete: its response written to the client (or its
    /// connection gone). ``HTTPResponder/respond(_:)`` only hands a response over; call this between the last
    /// `respond` and ``stop()`` so that answers already given are not cut off by the stop.
    /// - Parameter timeout: How long to wait at most.
    /// - Returns: `true` when no request was left open.
    @discardableResult
    public func waitForOpenRequests(timeout: Duration) -> Bool {
        let giveUp = ContinuousClock.now + timeout
        while core.openRequests.load(ordering: .relaxed) > 0 {
            if ContinuousClock.now >= giveUp {
                return false
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    /// Closes every connection and stops the server threads (`MHD_stop_daemon`). Idempotent.
    ///
    /// Requests still waiting for a response are closed without one; their ``HTTPResponder`` ignores later
    /// calls. Must not be called from a handler (it waits for the server threads). When two threads call it
    /// at once, one stops the daemon and the other returns at once.
    ///
    /// - Warning: a handler that captures its server keeps it alive, so `deinit` never runs; call `stop()`.
    public func stop() {
        // The daemon leaves the lock before it is stopped, so a handler calling `quiesce` meanwhile does not
        // wait on a lock held by a thread that is itself waiting for that handler's thread to finish.
        guard let running = daemon.withLock({ $0.take() }) else { return }
        core.watchdog.stop()
        // `MHD_stop_daemon` must not meet a suspended connection: resume each so the daemon can close it.
        for request in core.suspendedRequests.beginStopping() {
            request.abandon()
        }
        running.stop()
    }

    private static func validate(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
        let limit = UInt32.max
        if configuration.connectionLimit < 1 || configuration.connectionLimit > limit {
            throw .invalidConfiguration("connectionLimit must be in 1...\(limit), not \(configuration.connectionLimit)")
        }
        if configuration.perIPConnectionLimit < 0 || configuration.perIPConnectionLimit > limit {
            throw .invalidConfiguration(
                "perIPConnectionLimit must be in 0...\(limit), not \(configuration.perIPConnectionLimit)")
        }
        if configuration.requestDeadline < .zero {
            throw .invalidConfiguration("requestDeadline must not be negative, not \(configuration.requestDeadline)")
        }
        if configuration.connectionMemoryLimit < 4096 {
            throw .invalidConfiguration(
                "connectionMemoryLimit must be at least 4096 bytes, not \(configuration.connectionMemoryLimit)")
        }
        if configuration.maxBodyBytes < 0 {
            throw .invalidConfiguration("maxBodyBytes must not be negative, not \(configuration.maxBodyBytes)")
        }
        if configuration.threadPoolSize < 0 || configuration.threadPoolSize > 1024 {
            throw .invalidConfiguration("threadPoolSize must be in 0...1024, not \(configuration.threadPoolSize)")
        }
    }
}
