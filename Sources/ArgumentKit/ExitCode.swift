/// The process exit statuses of Cardinal's executables.
///
/// The values follow BSD `sysexits.h`, as swift-argument-parser does: scripts and systemd can tell a
/// mistyped command line (64) from a failure at run time (1).
public enum ExitCode {
    /// The command did what was asked, or printed the help that was asked for.
    public static let success: Int32 = 0
    /// The command line was fine but the work failed; the reason went to stderr as one line.
    public static let failure: Int32 = 1
    /// The command line could not be parsed (`EX_USAGE`); a ``UsageError`` went to stderr.
    public static let usage: Int32 = 64
}
