import ArgumentKit
import Foundation

/// Runs one `cardinal` command: usage errors exit 64 with the usage line, runtime failures print one line on
/// standard error and exit 1 (or the code a command chooses, such as 3 for `--fail-on`).
let arguments = CommandLineParser.parseProcessArgumentsOrExit(root: CardinalCommand.spec)
guard let handler = CardinalCommand.handlers[Array(arguments.commandPath.dropFirst())] else {
    preconditionFailure("no handler for \(arguments.commandPath): CardinalCommand.handlers is out of step with its spec")
}
do {
    try handler(CommandContext(arguments: arguments))
    exit(ExitCode.success)
} catch let error as UsageError {
    FileHandle.standardError.write(Data(error.description.utf8))
    exit(ExitCode.usage)
} catch let error as CommandExit {
    exit(error.code)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(ExitCode.failure)
}
