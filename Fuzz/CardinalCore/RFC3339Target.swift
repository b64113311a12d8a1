/// libFuzzer entry of `rfc3339`: the bytes are the text of an event's `time`.
///
/// A timestamp that parses must format back to text that parses to the same instant. Only instants in the years
/// 0000–9999 (UTC) have such text: `9999-12-31T23:59:59-23:00` parses (RFC 3339 allows it) to an instant in
/// the year 10000, which no four-digit year can name; the time window refuses such an event long before.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRFC3339(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let micros = RFC3339.microseconds(from: UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    guard fourDigitYears.contains(micros) else { return 0 }
    let text = RFC3339.string(microseconds: micros)
    let again = RFC3339.microseconds(from: text)
    precondition(again == micros, "\(micros) formats as \(text), which parses as \(String(describing: again))")
    return 0
}

/// The instants, in microseconds since the epoch, from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z.
private let fourDigitYears = RFC3339.microseconds(from: "0000-01-01T00:00:00Z")!
    ... RFC3339.microseconds(from: "9999-12-31T23:59:59.999999Z")!
