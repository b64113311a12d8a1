import Glibc
import Synchronization

/// The open connections, their peers' addresses, and since when each is ready for its next request.
///
/// `MHD_get_connection_info` and `MHD_get_daemon_info` are C variadic functions, which Swift cannot call, so
/// the address and the connection count come from callbacks instead: the accept-policy callback sees the
/// peer's address and, on the same server thread and right after it, `MHD_OPTION_NOTIFY_CONNECTION` reports
/// the new connection (libmicrohttpd 0.9.75 `internal_add_connection`). The address is parked per thread
/// between the two calls.
final class ConnectionTable: Sendable {
    private struct State {
        var acceptedByThread: [pthread_t: String] = [:]
        var addressByConnection: [UInt: String?] = [:]
        /// When the connection was accepted or last finished a request: no byte of its next request can have
        /// come earlier, so a request's deadline counts from here.
        var readySinceByConnection: [UInt: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())

    /// The accept-policy callback saw a peer; the next ``opened(_:)`` on this thread is its connection.
    func accepted(address: String?) {
        let thread = pthread_self()
        state.withLock { state in
            if let address {
                state.acceptedByThread[thread] = address
            } else {
                state.acceptedByThread.removeValue(forKey: thread)
            }
        }
    }

    func opened(_ connection: OpaquePointer) {
        let thread = pthread_self()
        state.withLock { state in
            state.addressByConnection[key(connection)] = state.acceptedByThread.removeValue(forKey: thread)
            state.readySinceByConnection[key(connection)] = .now
        }
    }

    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            state.addressByConnection.removeValue(forKey: key(connection))
            state.readySinceByConnection.removeValue(forKey: key(connection))
        }
    }

    /// A request on `connection` is over; the next one starts no earlier than now.
    func requestFinished(on connection: OpaquePointer) {
        state.withLock { state in
            if state.readySinceByConnection[key(connection)] != nil {
                state.readySinceByConnection[key(connection)] = .now
            }
        }
    }

    func readySince(_ connection: OpaquePointer) -> ContinuousClock.Instant? {
        state.withLock { $0.readySinceByConnection[key(connection)] }
    }

    func address(of connection: OpaquePointer) -> String? {
        state.withLock { $0.addressByConnection[key(connection)] ?? nil }
    }

    /// Pointers are not `Sendable`; their addresses serve as keys and are never turned back into pointers.
    private func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }

    var count: Int {
        state.withLock { $0.addressByConnection.count }
    }
}
