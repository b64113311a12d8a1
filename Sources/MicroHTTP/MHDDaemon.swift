import CMicroHTTPD
import Glibc

/// One running `struct MHD_Daemon`.
///
/// OWNERSHIP: created by `MHD_start_daemon_va`, stopped and freed by `MHD_stop_daemon` in ``stop()`` or
/// `deinit`, whichever comes first. A listening socket taken back by `MHD_quiesce_daemon` is ours and is
/// closed after `MHD_stop_daemon`, as libmicrohttpd requires for threaded daemons.
/// See <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dinit>.
final class MHDDaemon {
    private var pointer: OpaquePointer?
    private var quiescedSocket: Int32?

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        stop()
    }

    /// Starts the daemon on `socket`, with its callbacks bound to `core`.
    ///
    /// - Warning: `core` must outlive the daemon (until ``stop()`` returns).
    static func start(
        core: ServerCore, socket: ListeningSocket, configuration: HTTPServerConfiguration, host: String
    ) throws(HTTPServerError) -> MHDDaemon {
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if socket.isIPv6 {
            flags |= MHD_USE_IPv6.rawValue
        }
        // SAFETY: see `MHDCallbacks`; the core is borrowed unretained because `HTTPServer` keeps it alive.
        let cls = Unmanaged.passUnretained(core).toOpaque()
        let clsArgument = OpaquePointer(cls)
        // The logger comes first: libmicrohttpd prints messages about earlier options to stderr otherwise.
        var options: [any CVarArg] = [
            MHD_OPTION.EXTERNAL_LOGGER.rawValue, cFunction(MHDCallbacks.logger), clsArgument,
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(configuration.connectionLimit),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, timeoutSeconds(configuration.connectionTimeout),
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, configuration.connectionMemoryLimit,
            MHD_OPTION.LISTEN_SOCKET.rawValue, socket.descriptor,
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, cFunction(MHDCallbacks.requestCompleted), clsArgument,
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, cFunction(MHDCallbacks.connectionNotification), clsArgument,
        ]
        if configuration.perIPConnectionLimit > 0 {
            options += [MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(configuration.perIPConnectionLimit)]
        }
        if configuration.threadPoolSize > 0 {
            options += [MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(configuration.threadPoolSize)]
        }
        options.append(MHD_OPTION.END.rawValue)

        // Swift cannot call the variadic `MHD_start_daemon`; `withVaList` builds the `va_list` its `_va`
        // twin reads. Each value's C type matches what libmicrohttpd's `va_arg` expects for that option.
        let started = withVaList(options) { arguments in
            MHD_start_daemon_va(
                flags, 0, MHDCallbacks.acceptPolicy, cls, MHDCallbacks.accessHandler, cls, arguments)
        }
        guard let started else {
            // The socket stays libmicrohttpd's even now: closing it again could close a descriptor another
            // thread just opened, so at worst one descriptor leaks on a failed start.
            throw .daemonStartFailed(host: host, port: socket.port, detail: core.lastMessage ?? "")
        }
        return MHDDaemon(pointer: started)
    }

    /// Stops accepting connections (`MHD_quiesce_daemon`) and refuses new ones at once.
    ///
    /// `shutdown` on the returned listening socket makes the kernel refuse connections instead of queueing
    /// them in the backlog, without closing a descriptor a server thread may still hold.
    func quiesce() {
        guard let pointer, quiescedSocket == nil else { return }
        let descriptor = MHD_quiesce_daemon(pointer)
        guard descriptor >= 0 else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        quiescedSocket = descriptor
    }

    /// `MHD_stop_daemon`; closes every connection and joins the server threads. Idempotent.
    ///
    /// - Warning: every suspended connection must have been resumed first.
    func stop() {
        guard let pointer else { return }
        self.pointer = nil
        MHD_stop_daemon(pointer)
        if let quiescedSocket {
            close(quiescedSocket)
            self.quiescedSocket = nil
        }
    }

    static func timeoutSeconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return 0 }
        return UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }

    /// A C function pointer as a pointer-sized `CVarArg` that `va_arg` reads back as the callback type.
    private static func cFunction<Function>(_ function: Function) -> OpaquePointer {
        unsafeBitCast(function, to: OpaquePointer.self)
    }
}
