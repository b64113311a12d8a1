import Foundation

/// Reads what `SpoolBinaryWriter` wrote; any shortfall or nonsense throws instead of trapping, since the bytes
/// come from disk.
struct SpoolBinaryReader {
    /// The payload does not decode: a bug or a format from another version.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    private mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.endIndex - position >= count else {
            throw Malformed(description: "payload ends \(count) bytes early at \(position - bytes.startIndex)")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func uint8() throws(Malformed) -> UInt8 {
        try take(1).first!
    }

    mutating func bool() throws(Malformed) -> Bool {
        switch try uint8() {
        case 0: return false
        case 1: return true
        case let other: throw Malformed(description: "a flag of \(other)")
        }
    }

    mutating func uint64() throws(Malformed) -> UInt64 {
        try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func int64() throws(Malformed) -> Int64 {
        Int64(bitPattern: try uint64())
    }

    mutating func date() throws(Malformed) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: try uint64()))
    }

    mutating func string() throws(Malformed) -> String {
        let count = try uint64()
        guard count <= UInt64(bytes.count) else {
            throw Malformed(description: "a string of \(count) bytes")
        }
        guard let text = String(validating: try take(Int(count)), as: UTF8.self) else {
            throw Malformed(description: "a string that is not UTF-8")
        }
        return text
    }

    mutating func optionalString() throws(Malformed) -> String? {
        try bool() ? try string() : nil
    }

    mutating func uuid() throws(Malformed) -> UUID {
        let b = Array(try take(16))
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// A `RawRepresentable` enum stored as its raw text.
    mutating func value<T: RawRepresentable>(_: T.Type) throws(Malformed) -> T where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw Malformed(description: "'\(text)' is not a \(T.self)")
        }
        return value
    }
}
