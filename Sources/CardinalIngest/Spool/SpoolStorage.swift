/// The files of a spool directory, as `SpoolWriter` and `SpoolReplayer` need them: numbered segments, and a
/// quarantine for damaged records. `PosixSpoolStorage` is the real one; tests use an in-memory fake to check
/// rotation, caps, disk-full and recovery without a disk.
protocol SpoolStorage: Sendable {
    /// The sequence numbers of the segments present, oldest first.
    func segments() throws(SpoolError) -> [UInt64]
    /// The whole content of a segment.
    func read(segment: UInt64) throws(SpoolError) -> [UInt8]
    /// Creates an empty segment and makes its directory entry durable before returning it for appending.
    func create(segment: UInt64) throws(SpoolError) -> any SpoolSegmentFile
    /// Cuts a segment to its first `bytes` bytes, durably.
    func truncate(segment: UInt64, toBytes bytes: Int) throws(SpoolError)
    /// Deletes a segment, durably.
    func remove(segment: UInt64) throws(SpoolError)
    /// Keeps damaged bytes of a segment aside, durably, for a person to look at.
    /// - Returns: where they went, for the log.
    func quarantine(_ bytes: [UInt8], segment: UInt64, offset: Int) throws(SpoolError) -> String
}

/// A segment open for appending; only `SpoolWriter` holds one, under its lock.
protocol SpoolSegmentFile: AnyObject {
    /// Appends `bytes` and flushes them to disk (`fsync`) before returning.
    /// - Throws: `.noSpace` on ENOSPC; then the file may hold part of `bytes` and the caller truncates it.
    func appendDurably(_ bytes: [UInt8]) throws(SpoolError)
    /// Cuts the file back to `bytes`, undoing a failed append.
    func truncate(toBytes bytes: Int) throws(SpoolError)
}

/// Why the spool could not take or give back a batch.
enum SpoolError: Error, Equatable, CustomStringConvertible {
    /// `--spool-max-bytes` reached.
    case full
    /// The file system has no room (ENOSPC).
    case noSpace
    /// Another `cardinald` holds the directory's lock.
    case locked(String)
    /// Any other failure of the file system, with the operation, path and `strerror`.
    case io(String)

    var description: String {
        switch self {
        case .full: "the spool is full (--spool-max-bytes)"
        case .noSpace: "no space left on the spool's file system"
        case let .locked(message), let .io(message): message
        }
    }
}
