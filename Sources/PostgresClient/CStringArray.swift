/// Lends a list of Swift strings to C as an array of NUL-terminated `const char *`, for
/// [`PQexecParams`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQEXECPARAMS)'s `paramValues`
/// and [`PQconnectdbParams`](https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PQCONNECTDBPARAMS)'s
/// keyword and value arrays.
///
/// All strings are copied once into one contiguous byte buffer (each followed by a NUL), and the pointers
/// point into that buffer. This avoids a `strdup`/`free` per value and the deep nesting of `withCString`
/// calls; the buffer and the pointer array stay alive for exactly the duration of `body`.
enum CStringArray {
    /// Calls `body` with a C array of pointers to `strings`; a nil string becomes a NULL pointer.
    ///
    /// - Parameters:
    ///   - strings: the values; they must not contain NUL characters (C would cut them short there).
    ///   - nullTerminated: appends a final NULL pointer, as keyword/value arrays need.
    ///   - body: receives the array.
    /// - Warning: the pointers are valid only inside `body`.
    static func withPointers<Result>(
        to strings: [String?],
        nullTerminated: Bool = false,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> Result
    ) rethrows -> Result {
        var bytes = ContiguousArray<UInt8>()
        bytes.reserveCapacity(strings.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 1 })
        var offsets: [Int?] = []
        offsets.reserveCapacity(strings.count + 1)
        for string in strings {
            guard let string else {
                offsets.append(nil)
                continue
            }
            offsets.append(bytes.count)
            bytes.append(contentsOf: string.utf8)
            bytes.append(0)
        }
        return try bytes.withUnsafeBufferPointer { buffer in
            // SAFETY: the pointers point into `buffer`, alive until this closure returns; CChar and UInt8 may
            // alias. The buffer is not mutated while they exist.
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            var pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { base?.advanced(by: $0) } }
            // An empty list still gets one NULL entry so that there is always an array to point at.
            if nullTerminated || pointers.isEmpty {
                pointers.append(nil)
            }
            return try pointers.withUnsafeBufferPointer { try body($0.baseAddress!) }
        }
    }
}
