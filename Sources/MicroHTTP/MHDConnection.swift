/// A borrowed `struct MHD_Connection *`, valid while libmicrohttpd keeps the connection.
///
/// OWNERSHIP: libmicrohttpd owns the connection; this never frees it. Its holders (``RequestContext``,
/// ``HTTPResponder``) use it only while the request is alive, which `MHD_OPTION_NOTIFY_COMPLETED` ends.
struct MHDConnection {
    let pointer: OpaquePointer
}

/// SAFETY: the pointer moves to other threads only for `MHD_resume_connection`, which libmicrohttpd documents
/// as callable from any thread ("It is safe to resume a suspended connection at any time"), and only while
/// ``HTTPResponder``'s lock proves the connection is suspended and therefore alive.
extension MHDConnection: @unchecked Sendable {}
