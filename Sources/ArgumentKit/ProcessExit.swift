import Foundation

/// How an executable's `main` ends when the command line asks for no command: the text for help or the
/// version on standard output with exit 0, a usage error on standard error with exit 64.
enum ProcessExit {
    /// Writes help or the version to standard output and exits with ``ExitCode/success``.
    static func printing(_ text: String) -> Never {
        FileHandle.standardOutput.write(Data(text.utf8))
        exit(ExitCode.success)
    }

    /// Writes the usage error to standard error and exits with ``ExitCode/usage``.
    static func failing(with error: UsageError) -> Never {
        FileHandle.standardError.write(Data(error.description.utf8))
        exit(ExitCode.usage)
    }
}
