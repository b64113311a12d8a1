import Synchronization

@testable import CardinalIngest

/// A spool directory in memory, for `SpoolWriter` and `SpoolReplayer` tests: segments are byte arrays, a
/// `freeBytes` budget simulates a full disk (a write takes what fits, then fails with ENOSPC, as write(2) can).
final class InMemorySpoolStorage: SpoolStorage {
    struct Files {
        var segments: [UInt64: [UInt8]] = [:]
        var quarantined: [String: [UInt8]] = [:]
        var freeBytes = Int.max
    }

    let files: Mutex<Files>

    init(segments: [UInt64: [UInt8]] = [:]) {
        files = Mutex(Files(segments: segments))
    }

    func segments() throws(SpoolError) -> [UInt64] {
        files.withLock { $0.segments.keys.sorted() }
    }

    func read(segment: UInt64) throws(SpoolError) -> [UInt8] {
        guard let bytes = files.withLock({ $0.segments[segment] }) else {
            throw .io("no segment \(segment)")
        }
        return bytes
    }

    func create(segment: UInt64) throws(SpoolError) -> any SpoolSegmentFile {
        files.withLock { $0.segments[segment] = [] }
        return File(storage: self, segment: segment)
    }

    func truncate(segment: UInt64, toBytes bytes: Int) throws(SpoolError) {
        files.withLock { $0.segments[segment]?.removeSubrange(bytes...) }
    }

    func remove(segment: UInt64) throws(SpoolError) {
        _ = files.withLock { $0.segments.removeValue(forKey: segment) }
    }

    func quarantine(_ bytes: [UInt8], segment: UInt64, offset: Int) throws(SpoolError) -> String {
        let name = "\(segment)@\(offset)"
        files.withLock { $0.quarantined[name] = bytes }
        return name
    }

    final class File: SpoolSegmentFile {
        let storage: InMemorySpoolStorage
        let segment: UInt64

        init(storage: InMemorySpoolStorage, segment: UInt64) {
            self.storage = storage
            self.segment = segment
        }

        func appendDurably(_ bytes: [UInt8]) throws(SpoolError) {
            let fits = storage.files.withLock { files in
                let fitting = min(bytes.count, files.freeBytes)
                files.segments[segment, default: []] += bytes[..<fitting]
                files.freeBytes -= fitting
                return fitting == bytes.count
            }
            guard fits else {
                throw .noSpace
            }
        }

        func truncate(toBytes bytes: Int) throws(SpoolError) {
            try storage.truncate(segment: segment, toBytes: bytes)
        }
    }
}
