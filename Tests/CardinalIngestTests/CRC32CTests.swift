import Testing

@testable import CardinalIngest

@Suite struct CRC32CTests {
    @Test("The CRC-32C of \"123456789\" is the published check value 0xE3069283")
    func checkValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test("The empty input has checksum 0, and 32 zero bytes give RFC 3720's 0x8A9136AA")
    func knownVectors() {
        #expect(CRC32C.checksum([UInt8]()) == 0)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    }

    @Test("A checksum continued over two parts equals the checksum of the whole")
    func continuation() {
        let bytes = Array("the quick brown fox jumps over the lazy dog".utf8)
        #expect(CRC32C.checksum(bytes[20...], continuing: CRC32C.checksum(bytes[..<20])) == CRC32C.checksum(bytes))
    }
}
