/// A segment open for appending; only `SpoolWriter` holds one, under its lock.
protocol SpoolSegmentFile: AnyObject {
    /// Appends `bytes` and flushes them to disk (`fsync`) before returning.
    /// - Throws: `.noSpace` on ENOSPC; then the file may hold part of `bytes` and the caller truncates it.
    func appendDurably(_ bytes: [UInt8]) throws(SpoolError)
    /// Cuts the file back to `bytes`, undoing a failed append.
    func truncate(toBytes bytes: Int) throws(SpoolError)
}
