import CMicroHTTPD
import Glibc

/// The C callbacks given to libmicrohttpd. Each gets the ``ServerCore`` through its `cls` pointer.
///
/// SAFETY (all of them): `cls` is `Unmanaged.passUnretained(core)` from ``MHDDaemon/start(core:socket:configuration:)``,
/// and ``HTTPServer`` keeps the core alive until `MHD_stop_daemon` has returned, after which no callback runs.
/// C strings passed in are borrowed for the call and copied before use.
enum MHDCallbacks {
    static func core(_ cls: UnsafeMutableRawPointer?) -> ServerCore {
        guard let cls else { preconditionFailure("libmicrohttpd called back without its cls pointer") }
        return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    }

    /// `MHD_AccessHandlerCallback`.
    static let accessHandler: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, uploadData, uploadDataSize, requestSlot in
        guard let connection, let uploadDataSize, let requestSlot else { return .NO }
        return core(cls).handleAccess(
            connection: connection, url: url.map { String(cString: $0) } ?? "/",
            method: method.map { String(cString: $0) } ?? "", uploadData: uploadData,
            uploadDataSize: uploadDataSize, requestSlot: requestSlot)
    }

    /// `MHD_RequestCompletedCallback` (`MHD_OPTION_NOTIFY_COMPLETED`).
    static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestSlot, _ in
        guard let requestSlot else { return }
        core(cls).requestCompleted(connection: connection, requestSlot: requestSlot)
    }

    /// `MHD_NotifyConnectionCallback` (`MHD_OPTION_NOTIFY_CONNECTION`).
    static let connectionNotification: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let connection else { return }
        switch code {
        case .CONNECTION_NOTIFY_STARTED: core(cls).connections.opened(connection)
        case .CONNECTION_NOTIFY_CLOSED: core(cls).connections.closed(connection)
        @unknown default: break
        }
    }

    /// `MHD_AcceptPolicyCallback`: accepts everyone and notes the peer's address.
    static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, length in
        core(cls).connections.accepted(address: address.flatMap { numericHost($0, length: length) })
        return .YES
    }

    /// `MHD_LogCallback` (`MHD_OPTION_EXTERNAL_LOGGER`): formats with `vsnprintf`, which takes the
    /// `va_list` that Swift sees as `CVaListPointer`. Longer messages are cut at 1 KiB.
    static let logger: MHD_LogCallback = { cls, format, arguments in
        guard let format, let arguments else { return }
        var buffer = [CChar](repeating: 0, count: 1024)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        core(cls).log(message.trimmingSuffix { $0 == "\n" })
    }

    /// `inet_ntop` of an IPv4 or IPv6 socket address.
    static func numericHost(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(address.pointee.sa_family)
        let converted: UnsafePointer<CChar>?
        switch family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            // SAFETY: the family and length say the memory holds a `sockaddr_in`.
            converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) {
                    inet_ntop(family, $0, &text, socklen_t(text.count))
                }
            }
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            // SAFETY: as above, for `sockaddr_in6`.
            converted = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafePointer(to: ipv6.pointee.sin6_addr) {
                    inet_ntop(family, $0, &text, socklen_t(text.count))
                }
            }
        default:
            return nil
        }
        guard converted != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var result = self
        while let last = result.last, predicate(last) { result.removeLast() }
        return result
    }
}
