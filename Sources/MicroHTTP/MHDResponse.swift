import CMicroHTTPD

/// One `struct MHD_Response`, built from an ``HTTPResponse``.
///
/// OWNERSHIP: created by `MHD_create_response_from_buffer`, released by `MHD_destroy_response` in `deinit`;
/// `MHD_queue_response` takes its own reference, so destroying ours after queueing is correct.
/// See <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dresponse-create>.
final class MHDResponse {
    private let pointer: OpaquePointer

    /// Copies the body into libmicrohttpd (`MHD_RESPMEM_MUST_COPY`) and adds the headers.
    init?(_ response: HTTPResponse, log: (String) -> Void) {
        // SAFETY: MUST_COPY makes libmicrohttpd copy the bytes before this call returns, so lending the
        // array's storage for the call is enough; it never writes through the pointer.
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else {
            log("MHD_create_response_from_buffer failed for a \(response.body.count)-byte body")
            return nil
        }
        pointer = created
        for (name, value) in response.headers where MHD_add_response_header(pointer, name, value) != .YES {
            log("libmicrohttpd refused response header '\(name)'")
        }
    }

    deinit {
        MHD_destroy_response(pointer)
    }

    /// Queues the response (`MHD_queue_response`); must run inside the access handler for `connection`.
    func queue(on connection: OpaquePointer, status: Int, log: (String) -> Void) -> MHD_Result {
        guard let code = UInt32(exactly: status), MHD_queue_response(connection, code, pointer) == .YES else {
            log("MHD_queue_response failed for status \(status)")
            return .NO
        }
        return .YES
    }
}
