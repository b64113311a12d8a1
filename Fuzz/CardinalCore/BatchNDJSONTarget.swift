/// libFuzzer entry of `batch-ndjson`: the bytes are the (inflated) body of an `application/x-ndjson` request.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzBatchNDJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    BatchOracle.check(UnsafeBufferPointer(start: data, count: size), format: .ndjson)
    return 0
}
