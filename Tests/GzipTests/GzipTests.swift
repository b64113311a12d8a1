import Glibc
import Gzip
import Testing

@Suite struct GzipTests {
    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test("Empty, small and 5 MB random data survive a round trip", arguments: [0, 11, 5_000_000])
    func roundTrip(size: Int) throws {
        let original = size == 11 ? Array("hello gzip!".utf8) : Self.randomBytes(size)

        let compressed = Gzip.deflate(original)
        let restored = try Gzip.inflate(compressed, maxOutputBytes: max(size, 1))

        #expect(compressed.starts(with: [0x1F, 0x8B]))
        #expect(restored == original)
    }

    @Test("Every compression level produces data that inflates back", arguments: [Int32(-1), 0, 1, 9])
    func levels(level: Int32) throws {
        let original = Array(String(repeating: "engagement ", count: 1000).utf8)

        let restored = try Gzip.inflate(Gzip.deflate(original, level: level), maxOutputBytes: original.count)

        #expect(restored == original)
    }

    @Test("Output of exactly the limit succeeds and one byte more fails")
    func exactLimit() throws {
        let original = Array(repeating: UInt8(ascii: "a"), count: 100_000)
        let compressed = Gzip.deflate(original)

        #expect(try Gzip.inflate(compressed, maxOutputBytes: 100_000) == original)
        #expect(throws: GzipError.outputTooLarge(limit: 99_999)) {
            try Gzip.inflate(compressed, maxOutputBytes: 99_999)
        }
    }

    @Test("A bomb that would inflate to 1 GiB fails with outputTooLarge without using that memory")
    func bomb() throws {
        // 1 MiB of zeros compresses to about 1 KiB; 1024 concatenated members inflate to 1 GiB.
        let member = Gzip.deflate([UInt8](repeating: 0, count: 1 << 20), level: 9)
        let bomb = Array([[UInt8]](repeating: member, count: 1024).joined())
        let peakBefore = Self.peakResidentBytes()

        #expect(throws: GzipError.outputTooLarge(limit: 8 << 20)) {
            try Gzip.inflate(bomb, maxOutputBytes: 8 << 20)
        }

        #expect(member.count < 2048)
        #expect(Self.peakResidentBytes() - peakBefore < 256 << 20)
    }

    @Test("Concatenated gzip members inflate to their concatenation")
    func concatenatedMembers() throws {
        let first = Array("first member, ".utf8)
        let second = Array("second member".utf8)

        let restored = try Gzip.inflate(Gzip.deflate(first) + Gzip.deflate(second), maxOutputBytes: 1000)

        #expect(restored == first + second)
    }

    @Test("Truncated data is corrupt", arguments: [1, 8, 200])
    func truncated(dropped: Int) {
        let compressed = Gzip.deflate(Self.randomBytes(1000))

        #expect(Self.isCorrupt(Array(compressed.dropLast(dropped))))
    }

    @Test("Damaged, foreign and empty data are corrupt")
    func corrupt() {
        var damaged = Gzip.deflate(Array(String(repeating: "cardinal ", count: 200).utf8))
        damaged[damaged.count / 2] ^= 0xFF
        let trailingGarbage = Gzip.deflate(Array("ok".utf8)) + Array("not gzip".utf8)

        #expect(Self.isCorrupt(damaged))
        #expect(Self.isCorrupt(Array("plain text".utf8)))
        #expect(Self.isCorrupt([]))
        #expect(Self.isCorrupt(trailingGarbage))
    }

    /// Whether inflating `data` fails with `corrupt` and a reason.
    private static func isCorrupt(_ data: [UInt8]) -> Bool {
        do {
            _ = try Gzip.inflate(data, maxOutputBytes: 10_000)
            return false
        } catch {
            if case .corrupt(let reason) = error { return !reason.isEmpty }
            return false
        }
    }

    /// The process's peak resident set size so far (`ru_maxrss` is in KiB on Linux).
    private static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
