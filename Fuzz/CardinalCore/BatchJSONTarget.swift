/// libFuzzer entry of `batch-json`: the bytes are the (inflated) body of an `application/json` request.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzBatchJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    BatchOracle.check(UnsafeBufferPointer(start: data, count: size), format: .json)
    return 0
}
