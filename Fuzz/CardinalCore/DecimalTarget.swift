import Foundation

/// libFuzzer entry of `decimal`: the bytes are the text of a conversion `value`.
///
/// A value that parses must print as a number that parses to the same `Decimal`: what is stored is what was
/// sent, to the last digit.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzDecimal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard case .success(let value) = DecimalParser.parse(text) else { return 0 }
    let printed = "\(value)"
    let again = DecimalParser.parse(printed)
    precondition(again == .success(value), "\(text) parses as \(printed), which parses as \(again)")
    return 0
}
