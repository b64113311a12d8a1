import Foundation

/// Appends little-endian integers, exact dates and length-prefixed strings: the payload encoding of
/// `SpooledBatch`. Read back by `SpoolBinaryReader`.
struct SpoolBinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func uint8(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(value >> UInt64(shift) & 0xFF))
        }
    }

    mutating func int64(_ value: Int64) {
        uint64(UInt64(bitPattern: value))
    }

    /// A date to the last bit (its reference-date interval; the 1970 one would round on the way back).
    mutating func date(_ value: Date) {
        uint64(value.timeIntervalSinceReferenceDate.bitPattern)
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        uint64(UInt64(utf8.count))
        bytes += utf8
    }

    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value {
            string(value)
        }
    }

    mutating func uuid(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes += $0 }
    }
}
