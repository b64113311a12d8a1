import Foundation
import Testing

@testable import CardinalIngest

@Suite struct PosixSpoolStorageTests {
    private func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("spool-unit-\(UUID().uuidString.prefix(8))/nested").path
    }

    @Test("A missing folder is created with its parents, and segments round-trip through files")
    func createsFolderAndRoundTrips() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let storage = try PosixSpoolStorage(directory: folder)
        let file = try storage.create(segment: 12)
        try file.appendDurably([1, 2, 3])
        try file.appendDurably([4, 5])
        #expect(try storage.segments() == [12])
        #expect(try storage.read(segment: 12) == [1, 2, 3, 4, 5])
        try storage.truncate(segment: 12, toBytes: 2)
        #expect(try storage.read(segment: 12) == [1, 2])
        #expect(FileManager.default.fileExists(atPath: folder + "/segment-00000000000000000012.spool"))
        let quarantined = try storage.quarantine([9, 9], segment: 12, offset: 40)
        #expect(FileManager.default.contents(atPath: quarantined) == Data([9, 9]))
        try storage.remove(segment: 12)
        #expect(try storage.segments().isEmpty)
    }

    @Test("A second opener of a locked spool folder gets .locked, and gets in once the first is gone")
    func lockIsExclusive() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        var first: PosixSpoolStorage? = try PosixSpoolStorage(directory: folder)
        #expect(first != nil)
        #expect {
            _ = try PosixSpoolStorage(directory: folder)
        } throws: { error in
            guard case let .locked(message) = error as? SpoolError else { return false }
            return message.contains("in use by another cardinald")
        }
        first = nil
        _ = try PosixSpoolStorage(directory: folder)
    }
}
