import CMicroHTTPD

/// Copies a request's header fields and query arguments out of libmicrohttpd's memory pool.
///
/// See `MHD_get_connection_values`:
/// <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html#microhttpd_002dinspect>.
enum MHDValues {
    /// The request header fields, in the order received.
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            // SAFETY: the iterator runs synchronously inside this call, while `pointer` is valid.
            _ = MHD_get_connection_values(connection, .HEADER_KIND, appendHeader, pointer)
        }
        return headers
    }

    /// The decoded query arguments; the first of repeated names wins.
    static func query(of connection: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        withUnsafeMutablePointer(to: &query) { pointer in
            // SAFETY: as in `headers(of:)`.
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, addArgument, pointer)
        }
        return query
    }
}

/// `MHD_KeyValueIterator` appending to the `HTTPHeaders` that `cls` points to.
private let appendHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    // SAFETY: `cls` is the `HTTPHeaders` pointer lent by `MHDValues.headers(of:)` for this call; key and
    // value are borrowed C strings, copied here.
    let headers = cls.assumingMemoryBound(to: HTTPHeaders.self)
    headers.pointee.add(name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
    return .YES
}

/// `MHD_KeyValueIterator` adding to the `[String: String]` that `cls` points to.
private let addArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    // SAFETY: as in `appendHeader`, for the dictionary lent by `MHDValues.query(of:)`.
    let query = cls.assumingMemoryBound(to: [String: String].self)
    let name = String(cString: key)
    if query.pointee[name] == nil {
        query.pointee[name] = value.map { String(cString: $0) } ?? ""
    }
    return .YES
}
