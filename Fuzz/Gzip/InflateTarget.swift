/// libFuzzer entry of `gzip`: the first byte picks the output limit, the rest is a `Content-Encoding: gzip` body.
///
/// Inflating never produces more than the limit and refuses with that limit when the data would; what inflates
/// deflates again to data that inflates to the same bytes. The limits stay small (the daemon's is 32 MiB) because
/// the code that enforces a limit does not depend on its size, and a run spent inflating megabytes of zeros
/// tries few inputs.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzInflate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let limits = [0, 1, 100, 4_096, 65_535, 65_536, 65_537, 200_000]
    let limit = limits[Int(data[0]) % limits.count]
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let output: [UInt8]
    do {
        output = try Gzip.inflate(body, maxOutputBytes: limit)
    } catch .outputTooLarge(let reported) {
        precondition(reported == limit, "refused with limit \(reported), asked for \(limit)")
        return 0
    } catch {
        return 0
    }
    precondition(output.count <= limit, "inflated to \(output.count) bytes, limit \(limit)")
    let roundTrip = try? Gzip.inflate(Gzip.deflate(output, level: 1), maxOutputBytes: limit)
    precondition(roundTrip == output, "\(output.count) inflated bytes do not survive deflate and inflate")
    return 0
}
