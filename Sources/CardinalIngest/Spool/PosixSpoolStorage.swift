import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A spool directory on disk: `segment-<20 digits>.spool` files, a `quarantine/` folder, and a `lock` file held
/// with `flock(2)` for the life of this object, so that two daemons never share a spool.
///
/// Every change that must survive a crash is followed by `fsync(2)` of the file, and a created or removed
/// segment by `fsync(2)` of the directory (see fsync(2), "does not necessarily ensure that the entry in the
/// directory containing the file has also reached disk").
final class PosixSpoolStorage: SpoolStorage {
    let directory: String
    // OWNERSHIP: this object owns both descriptors from init to deinit, which closes them; closing the lock file
    // releases the flock. Nothing else ever closes them.
    private let lockDescriptor: Int32
    private let directoryDescriptor: Int32

    /// Opens (creating it and its parents if missing) and locks a spool directory.
    /// - Throws: `.io` when it cannot be created or opened, `.locked` when another process holds it.
    init(directory: String) throws(SpoolError) {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(atPath: directory + "/quarantine", withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create the spool directory \(directory) (\(error.localizedDescription)); create it and give it to the user that runs cardinald, or choose another with --spool-dir")
        }
        let lockPath = directory + "/lock"
        let lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else {
            throw .io(Self.failure("open", lockPath))
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            let message = errno == EWOULDBLOCK
                ? "the spool directory \(directory) is in use by another cardinald (it holds \(lockPath)); give each daemon its own --spool-dir"
                : Self.failure("flock", lockPath)
            close(lockDescriptor)
            throw errno == EWOULDBLOCK ? .locked(message) : .io(message)
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else {
            close(lockDescriptor)
            throw .io(Self.failure("open", directory))
        }
        self.lockDescriptor = lockDescriptor
        self.directoryDescriptor = directoryDescriptor
    }

    deinit {
        close(directoryDescriptor)
        close(lockDescriptor)
    }

    func segments() throws(SpoolError) -> [UInt64] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .io("cannot list the spool directory \(directory): \(error.localizedDescription)")
        }
        return names.compactMap { name in
            guard name.hasPrefix("segment-"), name.hasSuffix(".spool") else { return nil }
            return UInt64(name.dropFirst("segment-".count).dropLast(".spool".count))
        }.sorted()
    }

    func read(segment: UInt64) throws(SpoolError) -> [UInt8] {
        let path = path(of: segment)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .io(Self.failure("read", path))
        }
        return Array(data)
    }

    func create(segment: UInt64) throws(SpoolError) -> any SpoolSegmentFile {
        let file = try PosixSegmentFile(path: path(of: segment))
        try syncDirectory()
        return file
    }

    func truncate(segment: UInt64, toBytes bytes: Int) throws(SpoolError) {
        let path = path(of: segment)
        let file = try PosixSegmentFile(path: path)
        try file.truncate(toBytes: bytes)
    }

    func remove(segment: UInt64) throws(SpoolError) {
        let path = path(of: segment)
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .io(Self.failure("unlink", path))
        }
        try syncDirectory()
    }

    func quarantine(_ bytes: [UInt8], segment: UInt64, offset: Int) throws(SpoolError) -> String {
        let path = directory + "/quarantine/" + Self.name(of: segment) + "-at-\(offset).bad"
        let file = try PosixSegmentFile(path: path)
        try file.truncate(toBytes: 0)
        try file.appendDurably(bytes)
        try syncDirectory(directory + "/quarantine")
        return path
    }

    private func path(of segment: UInt64) -> String {
        directory + "/" + Self.name(of: segment)
    }

    static func name(of segment: UInt64) -> String {
        let digits = String(segment)
        return "segment-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".spool"
    }

    private func syncDirectory() throws(SpoolError) {
        guard fsync(directoryDescriptor) == 0 else {
            throw .io(Self.failure("fsync", directory))
        }
    }

    /// `fsync` of another folder, opened for the call.
    private func syncDirectory(_ path: String) throws(SpoolError) {
        // OWNERSHIP: opened and closed here.
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .io(Self.failure("open", path))
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw .io(Self.failure("fsync", path))
        }
    }

    static func failure(_ operation: String, _ path: String) -> String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}
