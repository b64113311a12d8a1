import CZlib

/// One zlib inflate state that detects gzip or zlib framing.
///
/// OWNERSHIP: the `z_stream` lives on the heap because zlib keeps a pointer back to it (`inflateStateCheck`
/// rejects a moved stream); `inflateInit2_` sets it up and `deinit` calls `inflateEnd` and frees it, on every
/// path, errors included. See <https://zlib.net/manual.html#Advanced>.
final class InflateStream {
    private let stream: UnsafeMutablePointer<z_stream>

    /// Window bits 15 + 32: the largest window, and gzip or zlib headers detected automatically.
    init() throws(GzipError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            // Every stored property is set, so `deinit` runs after this throw and frees the stream; freeing it
            // here too would free it twice. `inflateEnd` on a stream whose init failed only returns an error.
            throw .corrupt("inflateInit2 failed with zlib status \(status)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates all of `input`, member after member, into at most `limit` bytes.
    func inflateAll(_ input: UnsafeRawBufferPointer, limit: Int) throws(GzipError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, input.count * 4))
        try inflateAll(input, limit: limit) { output.append(contentsOf: $0) }
        return output
    }

    /// Inflates `input` in 64 KiB pieces handed to `consume`, refusing to produce more than `limit` bytes.
    func inflateAll(
        _ input: UnsafeRawBufferPointer, limit: Int, consume: (ArraySlice<UInt8>) -> Void
    ) throws(GzipError) {
        guard let base = input.baseAddress, !input.isEmpty else { throw .corrupt("no data") }
        let chunkSize = 64 * 1024
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var producedSoFar = 0
        var consumed = 0

        // SAFETY: zlib reads through `next_in` and writes through `next_out` only during `inflate`, and both
        // point into buffers alive for the whole loop; `avail_*` bound what it touches.
        while true {
            if stream.pointee.avail_in == 0, consumed < input.count {
                let piece = min(input.count - consumed, Int(UInt32.max))
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: base.advanced(by: consumed).assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(piece)
                consumed += piece
            }
            let status = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                return inflate(stream, Z_NO_FLUSH)
            }
            let produced = chunkSize - Int(stream.pointee.avail_out)
            guard producedSoFar + produced <= limit else { throw .outputTooLarge(limit: limit) }
            producedSoFar += produced
            consume(chunk[..<produced])

            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                let moreInput = stream.pointee.avail_in > 0 || consumed < input.count
                guard moreInput else { return }
                // Concatenated gzip members (RFC 1952 §2.2) form one stream: start on the next member.
                guard inflateReset(stream) == Z_OK else { throw .corrupt("cannot restart for the next member") }
            case Z_BUF_ERROR where stream.pointee.avail_in == 0 && consumed == input.count:
                throw .corrupt("truncated: the stream ends early")
            default:
                throw .corrupt(message(for: status))
            }
        }
    }

    private func message(for status: Int32) -> String {
        let detail = stream.pointee.msg.map { String(cString: $0) } ?? "no detail"
        return "zlib status \(status): \(detail)"
    }
}
