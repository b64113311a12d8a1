import Testing

@testable import CardinalIngest

@Suite struct SpoolSegmentFormatTests {
    private let payloads: [[UInt8]] = [Array("first".utf8), [], Array(repeating: 0x43, count: 300), Array("last".utf8)]

    private var segment: [UInt8] { payloads.flatMap(SpoolSegmentFormat.frame) }

    private func offset(ofRecord index: Int) -> Int {
        payloads[..<index].reduce(0) { $0 + SpoolSegmentFormat.headerSize + $1.count }
    }

    @Test("A frame is the magic, the length and the CRC-32C of length and payload, then the payload")
    func frameLayout() {
        let frame = SpoolSegmentFormat.frame(Array("123456789".utf8))
        #expect(Array(frame[0..<4]) == Array("CSR1".utf8))
        #expect(Array(frame[4..<8]) == [9, 0, 0, 0])
        let crc = CRC32C.checksum(Array("123456789".utf8), continuing: CRC32C.checksum([9, 0, 0, 0]))
        #expect(SpoolSegmentFormat.readUInt32(frame, at: 8) == crc)
        #expect(Array(frame[12...]) == Array("123456789".utf8))
    }

    @Test("Intact records scan back as they were framed, empty payloads included")
    func roundTrip() {
        let scan = SpoolSegmentFormat.scan(segment)
        #expect(scan.records.map { Array($0.payload) } == payloads)
        #expect(scan.records.map(\.offset) == (0..<payloads.count).map(offset(ofRecord:)))
        #expect(scan.corrupt.isEmpty)
        #expect(scan.validEnd == segment.count)
    }

    @Test("A record cut short at the end is a torn tail: everything before it survives", arguments: [1, 5, 12, 13, 15])
    func tornTail(keptBytesOfLast: Int) {
        let cut = offset(ofRecord: 3) + keptBytesOfLast
        let scan = SpoolSegmentFormat.scan(Array(segment[..<cut]))
        #expect(scan.records.map { Array($0.payload) } == Array(payloads[..<3]))
        #expect(scan.corrupt.isEmpty)
        #expect(scan.validEnd == offset(ofRecord: 3))
    }

    @Test("A last record whose bytes were garbled (CRC wrong) is a torn tail too")
    func garbledLastRecord() {
        var bytes = segment
        bytes[bytes.count - 1] ^= 0xFF
        let scan = SpoolSegmentFormat.scan(bytes)
        #expect(scan.records.count == 3)
        #expect(scan.validEnd == offset(ofRecord: 3))
    }

    @Test("A corrupt record in the middle is reported for quarantine and the records after it still scan",
          arguments: [SpoolSegmentFormat.headerSize + 10, 5, 9])
    func corruptMiddle(flippedByteInRecord: Int) {
        var bytes = segment
        bytes[offset(ofRecord: 2) + flippedByteInRecord] ^= 0x5A
        let scan = SpoolSegmentFormat.scan(bytes)
        #expect(scan.records.map { Array($0.payload) } == [payloads[0], payloads[1], payloads[3]])
        #expect(scan.corrupt == [offset(ofRecord: 2)..<offset(ofRecord: 3)])
        #expect(scan.validEnd == bytes.count)
    }

    @Test("Zeroed bytes in the middle (a lost page) are quarantined up to the next intact record")
    func zeroedStretch() {
        var bytes = segment
        for index in offset(ofRecord: 1)..<offset(ofRecord: 2) + 4 {
            bytes[index] = 0
        }
        let scan = SpoolSegmentFormat.scan(bytes)
        #expect(scan.records.map { Array($0.payload) } == [payloads[0], payloads[3]])
        #expect(scan.corrupt == [offset(ofRecord: 1)..<offset(ofRecord: 3)])
    }

    @Test("An empty segment holds nothing and ends cleanly")
    func emptySegment() {
        #expect(SpoolSegmentFormat.scan([]) == .init(records: [], corrupt: [], validEnd: 0))
    }
}
