import Foundation

/// Where commands write: scriptable output on standard output, everything for people on standard error.
enum Console {
    /// Writes scriptable output to standard output.
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes one line of human-readable information to standard error (never part of the scriptable output).
    static func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
