import Foundation
import Synchronization

/// Where finished log lines go: standard error in the executables, memory in tests.
public struct LogOutput: Sendable {
    /// Takes one finished line; called from any thread, one call at a time.
    let write: @Sendable (String) -> Void

    /// An output that hands each line to `write`.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Standard error, one `write(2)` per line so that lines of concurrent threads never interleave.
    public static let standardError: LogOutput = {
        let handle = Mutex(FileHandle.standardError)
        return LogOutput { line in handle.withLock { $0.write(Data(line.utf8)) } }
    }()
}
