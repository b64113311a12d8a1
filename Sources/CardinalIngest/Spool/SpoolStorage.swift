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
