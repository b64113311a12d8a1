import Foundation
import Testing
import TestSupport

/// The `--help` of both binaries, and of every `cardinal` group and command, against the text kept in
/// `Tests/EndToEndTests/Snapshots/help/`: a changed option, default or wording shows up as a diff to review.
/// `CARDINAL_RECORD_SNAPSHOTS=1` writes the current texts there (and fails, so that a recording never passes
/// unnoticed).
@Suite struct HelpSnapshotTests {
    static let directory = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Snapshots/help")

    /// Compares `--help` of `binary` with `arguments` to its snapshot, named after the command path.
    private static func check(_ binary: String, _ arguments: [String]) throws {
        let result = try ChildProcess.run(try CardinalCLI.binary(binary), arguments + ["--help"])
        let name = ([binary] + arguments).joined(separator: "-") + ".txt"
        let file = directory.appendingPathComponent(name)
        #expect(result.exitStatus == 0, "\(name): \(result.standardError)")
        if ProcessInfo.processInfo.environment["CARDINAL_RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(result.standardOutput.utf8).write(to: file)
            Issue.record("recorded \(file.path); review it and run again without CARDINAL_RECORD_SNAPSHOTS")
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("no snapshot \(file.path): run with CARDINAL_RECORD_SNAPSHOTS=1 to record it")
            return
        }
        #expect(result.standardOutput == expected, "\(name) differs from its snapshot")
    }

    /// The names under `SUBCOMMANDS:` in a help text.
    private static func subcommands(inHelp help: String) -> [String] {
        guard let section = help.range(of: "SUBCOMMANDS:\n") else {
            return []
        }
        return help[section.upperBound...].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first,
                  !line.contains("See 'cardinal help")
            else {
                return nil
            }
            return String(name)
        }
    }

    @Test("cardinald --help matches its snapshot")
    func daemonHelp() throws {
        try Self.check("cardinald", [])
    }

    @Test("cardinal --help, and that of every group and command below it, matches its snapshot")
    func cardinalHelp() throws {
        var pending: [[String]] = [[]]
        var checked = 0
        while let path = pending.popLast() {
            try Self.check("cardinal", path)
            checked += 1
            let help = try ChildProcess.run(try CardinalCLI.binary("cardinal"), path + ["--help"]).standardOutput
            pending += Self.subcommands(inHelp: help).map { path + [$0] }
        }
        #expect(checked > 20, "every command was reached through the SUBCOMMANDS lists")
    }
}
