import CZlib

/// One zlib deflate state writing gzip framing.
///
/// OWNERSHIP: as for ``InflateStream``: a heap `z_stream` set up by `deflateInit2_`, ended by `deflateEnd` and
/// freed in `deinit`. See <https://zlib.net/manual.html#Advanced>.
final class DeflateStream {
    private let stream: UnsafeMutablePointer<z_stream>

    /// - Parameter level: 0 (store) to 9 (smallest), or -1 for zlib's default.
    init(level: Int32) {
        precondition((-1...9).contains(level), "gzip level must be in -1...9, not \(level)")
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Window bits 15 + 16 asks for a gzip header and trailer instead of zlib's.
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        // With valid arguments only memory exhaustion fails here, which Swift treats as fatal anyway.
        precondition(status == Z_OK, "deflateInit2 failed with zlib status \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses all of `input` into one gzip member.
    func deflateAll(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var consumed = 0
        // SAFETY: as in `InflateStream.inflateAll`: both buffers outlive every `deflate` call.
        while true {
            if stream.pointee.avail_in == 0, consumed < input.count, let base = input.baseAddress {
                let piece = min(input.count - consumed, Int(UInt32.max))
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: base.advanced(by: consumed).assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(piece)
                consumed += piece
            }
            let flush = consumed == input.count ? Z_FINISH : Z_NO_FLUSH
            let status = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                return deflate(stream, flush)
            }
            output.append(contentsOf: chunk[..<(chunk.count - Int(stream.pointee.avail_out))])
            if status == Z_STREAM_END { return output }
            precondition(status == Z_OK || status == Z_BUF_ERROR, "deflate failed with zlib status \(status)")
        }
    }
}
