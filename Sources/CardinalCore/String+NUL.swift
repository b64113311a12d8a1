extension String {
    /// Whether the string holds U+0000, which PostgreSQL `text` and `jsonb` cannot store.
    ///
    /// Scans the contiguous UTF-8 storage directly: checked for every string field of every event, and a
    /// plain loop over a buffer is several times cheaper than iterating `utf8` through its indexes.
    var containsNUL: Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? utf8.contains(0)
    }
}
