/// gzip compression for request bodies, on zlib.
public enum Gzip {
    /// Inflates gzip (or zlib) data, refusing to produce more than `maxOutputBytes`.
    ///
    /// Works in 64 KiB steps and stops as soon as the output passes the limit, so a small "bomb" that
    /// would inflate to gigabytes costs at most `maxOutputBytes` + 64 KiB of memory. Concatenated gzip
    /// members are inflated one after another, as `gunzip` does.
    ///
    /// - Parameters:
    ///   - data: The compressed bytes.
    ///   - maxOutputBytes: The largest output accepted; output of exactly this size succeeds.
    /// - Returns: The inflated bytes.
    /// - Throws: ``GzipError/outputTooLarge(limit:)`` past the limit; ``GzipError/corrupt(_:)`` for data
    ///   that is empty, truncated, or not gzip/zlib.
    public static func inflate(_ data: [UInt8], maxOutputBytes: Int) throws(GzipError) -> [UInt8] {
        let stream = try InflateStream()
        // `withUnsafeBytes` rethrows untyped errors, so the typed error travels out in a `Result`.
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(GzipError) in try stream.inflateAll(bytes, limit: max(0, maxOutputBytes)) }
        }
        return try result.get()
    }

    /// How many bytes `data` inflates to, found without keeping them: what lets a caller reserve exactly the
    /// memory that ``inflate(_:exactBytes:)`` will then take, instead of growing an array
    /// (which holds up to 1.5 times the output while it grows).
    /// - Throws: as ``inflate(_:maxOutputBytes:)``.
    public static func inflatedSize(of data: [UInt8], maxOutputBytes: Int) throws(GzipError) -> Int {
        let stream = try InflateStream()
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(GzipError) in
                var size = 0
                try stream.inflateAll(bytes, limit: max(0, maxOutputBytes)) { size += $0.count }
                return size
            }
        }
        return try result.get()
    }

    /// Inflates `data` into an array of exactly `exactBytes` capacity, as ``inflatedSize(of:maxOutputBytes:)``
    /// measured it.
    /// - Throws: as ``inflate(_:maxOutputBytes:)``; ``GzipError/outputTooLarge(limit:)`` past `exactBytes`.
    public static func inflate(_ data: [UInt8], exactBytes: Int) throws(GzipError) -> [UInt8] {
        let stream = try InflateStream()
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(GzipError) in
                var output: [UInt8] = []
                output.reserveCapacity(exactBytes)
                try stream.inflateAll(bytes, limit: exactBytes) { output.append(contentsOf: $0) }
                return output
            }
        }
        return try result.get()
    }

    /// Compresses `data` into one gzip member (RFC 1952).
    ///
    /// - Parameters:
    ///   - data: The bytes to compress.
    ///   - level: 0 (store) to 9 (smallest), or -1 for zlib's default; anything else is a programmer error.
    /// - Returns: The gzip bytes.
    public static func deflate(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
        let stream = DeflateStream(level: level)
        return data.withUnsafeBytes { stream.deflateAll($0) }
    }
}
