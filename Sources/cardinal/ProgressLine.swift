import Foundation

/// A progress line on standard error for long commands, redrawn in place, when standard error is a terminal;
/// nothing at all otherwise, so that cron mails and logs carry only the final summary.
struct ProgressLine {
    private let isTerminal = isatty(FileHandle.standardError.fileDescriptor) == 1

    /// Replaces the line with `text`.
    func show(_ text: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)…".utf8))
    }

    /// Removes the line, before a summary is printed in its place.
    func clear() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
