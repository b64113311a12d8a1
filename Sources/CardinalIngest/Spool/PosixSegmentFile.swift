#if canImport(Glibc)
import Glibc
#endif

/// A file opened for appending with `O_APPEND`, each append followed by `fsync(2)`.
final class PosixSegmentFile: SpoolSegmentFile {
    private let path: String
    // OWNERSHIP: opened in init, closed in deinit, by this object alone.
    private let descriptor: Int32

    /// Opens `path` for appending, creating it if missing.
    init(path: String) throws(SpoolError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .io(PosixSpoolStorage.failure("open", path))
        }
    }

    deinit {
        close(descriptor)
    }

    func appendDurably(_ bytes: [UInt8]) throws(SpoolError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                // SAFETY: the buffer lives for the closure, and `written < count` keeps the range inside it.
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR {
                    continue
                }
                throw errno == ENOSPC || errno == EDQUOT ? .noSpace : .io(PosixSpoolStorage.failure("write", path))
            }
            written += result
        }
        guard fsync(descriptor) == 0 else {
            throw errno == ENOSPC || errno == EDQUOT ? .noSpace : .io(PosixSpoolStorage.failure("fsync", path))
        }
    }

    func truncate(toBytes bytes: Int) throws(SpoolError) {
        guard ftruncate(descriptor, off_t(bytes)) == 0, fsync(descriptor) == 0 else {
            throw .io(PosixSpoolStorage.failure("truncate", path))
        }
    }
}
