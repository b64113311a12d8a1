import ArgumentKit
import Foundation

/// Runs one `cardinal` command: usage errors exit 64 with the usage line, runtime failures print one line on
/// standard error and exit 1 (or the code a command chooses, such as 3 for `--fail-on`).
let invocation = CardinalCommand.tree.parseProcessArgumentsOrExit()
do {
    try invocation.run()
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
