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
