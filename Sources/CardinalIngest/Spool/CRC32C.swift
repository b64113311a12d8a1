/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every spool record.
///
/// Table-driven, one byte per step: the spool checks a few megabytes a second at most, so the slicing-by-8 or
/// SSE 4.2 variants would buy nothing worth their code. Check value: `"123456789"` → `0xE3069283` (RFC 3720,
/// appendix B.4).
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { byte in
        var crc = UInt32(byte)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
        }
        return crc
    }

    /// The checksum of `bytes`, continuing from `crc` (the value of the bytes before them; `0` to start).
    static func checksum(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8)
            }
        }
        return ~value
    }
}
