/// A command line that cannot be run, with what to tell the user.
///
/// Its ``description`` is the whole stderr text, in swift-argument-parser's form:
///
/// ```
/// Error: Missing expected argument '--app <app>'
/// Usage: cardinal keys create --app <app> [--description <text>]
///   See 'cardinal keys create --help' for more information.
/// ```
///
/// The parser returns these in ``ParseOutcome/usageError(_:)``; the typed value accessors of
/// ``ParsedArguments`` throw them, and ``ParsedArguments/usageError(_:)`` makes one for checks a
/// command does itself (say, `--from` after `--to`). The program writes it and exits with
/// ``ExitCode/usage``.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, as one sentence without the `Error: ` prefix.
    public var message: String
    /// The command the error is about, from the executable's name on: `["cardinal", "keys", "create"]`.
    public var commandPath: [String]
    /// The command's usage synopsis without the `Usage: ` prefix; long ones span several lines.
    public var usage: String

    /// Creates a usage error.
    ///
    /// - Parameters:
    ///   - message: What is wrong, without the `Error: ` prefix.
    ///   - commandPath: The command the error is about, from the executable's name on.
    ///   - usage: The command's usage synopsis, as ``HelpRenderer/usage(_:path:)`` renders it.
    public init(message: String, commandPath: [String], usage: String) {
        self.message = message
        self.commandPath = commandPath
        self.usage = usage
    }

    /// The full text for stderr: the error, the usage line and where to find help; ends with a newline.
    public var description: String {
        """
        Error: \(message)
        Usage: \(usage)
          See '\(commandPath.joined(separator: " ")) --help' for more information.

        """
    }
}
