import Foundation

/// A progress line on standard error for long commands, redrawn in place, when standard error is a terminal;
/// nothing at all otherwise, so that cron mails and logs carry only the final summary.
final class ProgressLine {
    private let isTerminal = isatty(FileHandle.standardError.fileDescriptor) == 1
    /// Whether a line is on the screen, so that clearing twice (a summary, then a `defer`) writes nothing more.
    private var isShowing = false

    /// Replaces the line with `text`.
    func show(_ text: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)…".utf8))
        isShowing = true
    }

    /// Removes the line, before a summary or an error is printed in its place.
    func clear() {
        guard isShowing else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        isShowing = false
    }
}
