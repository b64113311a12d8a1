/// What ``CommandLineParser/parse(_:root:environment:)`` decided the program should do.
public enum ParseOutcome: Sendable {
    /// Run the command named by ``ParsedArguments/commandPath`` with these values.
    case run(ParsedArguments)
    /// Write this help text to stdout as it is (it ends with a newline) and exit with ``ExitCode/success``.
    ///
    /// This answers `-h`, `--help`, `help <subcommand>…`, and a command group given no subcommand.
    case help(String)
    /// Write this text to stdout as it is (`cardinal 0.1.0` and a newline) and exit with ``ExitCode/success``.
    ///
    /// This answers `--version` when the root command has a ``CommandSpec/version``; help wins over it.
    case version(String)
    /// Write the error's ``UsageError/description`` to stderr as it is and exit with ``ExitCode/usage``.
    case usageError(UsageError)
}
