import Foundation
import TestSupport

/// Runs a command with a pseudo-terminal for its standard streams, through util-linux `script`, the way an
/// operator's shell would: what the command writes to the terminal (standard output and standard error
/// together) comes back as the result's standard output.
enum Terminal {
    /// `script`, from util-linux (Debian's essential package bsdutils).
    static let script = URL(fileURLWithPath: "/usr/bin/script")

    /// Runs `executable` with `arguments` on a pseudo-terminal.
    static func run(_ executable: URL, _ arguments: [String]) throws -> CommandResult {
        guard FileManager.default.isExecutableFile(atPath: script.path) else {
            throw SetupFailure(description: "\(script.path) is missing: install util-linux's script (bsdutils)")
        }
        // `script -c` hands the line to a shell: quote every word so that URLs and paths pass unchanged.
        let line = ([executable.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        return try ChildProcess.run(script, ["--quiet", "--return", "--command", line, "/dev/null"])
    }
}
