/// The bytes of a spool segment: records one after another, each framed as
///
/// ```
/// magic "CSR1" (4) | payload length, UInt32 LE (4) | CRC-32C of length and payload, UInt32 LE (4) | payload
/// ```
///
/// Pure functions over byte arrays, no I/O: `SpoolWriter` appends what ``frame(_:)`` makes, and ``scan(_:)`` tells
/// good records from damage. The magic lets a reader find the next record after a corrupt one; the CRC covers
/// the length too, so a damaged length is caught before it is trusted.
enum SpoolSegmentFormat {
    /// Bytes before the payload.
    static let headerSize = 12
    /// A payload longer than this is taken for damage: the batcher never hands the spool a batch near it.
    static let maxPayloadBytes = 256 * 1024 * 1024
    static let magic: [UInt8] = Array("CSR1".utf8)

    /// What a segment holds.
    struct Scan: Equatable {
        /// The payloads of the intact records, in order, with the offset of each record's frame.
        var records: [(offset: Int, payload: ArraySlice<UInt8>)]
        /// Damaged stretches with intact records after them: the bytes to move aside into quarantine.
        var corrupt: [Range<Int>]
        /// Where the intact data ends: a damaged or incomplete last record starts here (a write cut short by a
        /// crash). Equal to the byte count when the segment ends cleanly.
        var validEnd: Int

        static func == (lhs: Scan, rhs: Scan) -> Bool {
            lhs.corrupt == rhs.corrupt && lhs.validEnd == rhs.validEnd
                && lhs.records.map(\.offset) == rhs.records.map(\.offset)
                && lhs.records.map { Array($0.payload) } == rhs.records.map { Array($0.payload) }
        }
    }

    /// One record framed for appending.
    static func frame(_ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= maxPayloadBytes, "a spool record of \(payload.count) bytes")
        var bytes = magic
        bytes.reserveCapacity(headerSize + payload.count)
        let length = littleEndianBytes(UInt32(payload.count))
        bytes += length
        bytes += littleEndianBytes(CRC32C.checksum(payload, continuing: CRC32C.checksum(length)))
        bytes += payload
        return bytes
    }

    /// Splits a segment into intact records, corrupt stretches in the middle, and a torn tail.
    ///
    /// A record that fails its checks is corrupt if an intact record follows it somewhere (found by its
    /// magic), and the start of the torn tail if none does.
    static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan(records: [], corrupt: [], validEnd: bytes.count)
        var offset = 0
        while offset < bytes.count {
            if let end = recordEnd(in: bytes, at: offset) {
                scan.records.append((offset, bytes[(offset + headerSize)..<end]))
                offset = end
                continue
            }
            guard let next = nextRecord(in: bytes, after: offset) else {
                scan.validEnd = offset
                break
            }
            scan.corrupt.append(offset..<next)
            offset = next
        }
        return scan
    }

    /// The end of the intact record that starts at `offset`, or `nil` when there is none.
    private static func recordEnd(in bytes: [UInt8], at offset: Int) -> Int? {
        guard bytes.count - offset >= headerSize, bytes[offset..<offset + 4].elementsEqual(magic) else {
            return nil
        }
        let length = Int(readUInt32(bytes, at: offset + 4))
        guard length <= maxPayloadBytes, bytes.count - offset - headerSize >= length else {
            return nil
        }
        let payload = bytes[(offset + headerSize)..<(offset + headerSize + length)]
        let expected = CRC32C.checksum(payload, continuing: CRC32C.checksum(bytes[(offset + 4)..<(offset + 8)]))
        return readUInt32(bytes, at: offset + 8) == expected ? offset + headerSize + length : nil
    }

    private static func nextRecord(in bytes: [UInt8], after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + headerSize <= bytes.count {
            if bytes[candidate] == magic[0], recordEnd(in: bytes, at: candidate) != nil {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    static func littleEndianBytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}
