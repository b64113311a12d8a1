import Foundation
import Testing
import TestSupport

/// Long commands show a progress line on a terminal and none in cron: `cardinal migrate` per migration and
/// `cardinal report run` per step and page (in cron, `report run` logs instead: `CommandLoggingTests`).
@Suite struct ProgressLineTests {
    /// What starts every redraw of the progress line: back to the start of the line, erase it.
    static let redraw = "\r\u{1B}[K"

    /// The migration files, in the order they are applied.
    static func migrationFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(
            at: TestDatabase.migrationDirectory.url, includingPropertiesForKeys: nil
        ).filter { $0.pathExtension == "sql" }.map(\.lastPathComponent).sorted()
    }

    private static func codeFileCount() throws -> Int {
        try TestDatabase.migrationDirectory.loadCode().count
    }

    @Test("On a terminal, cardinal migrate shows each migration and then the code files as applied, then clears the line")
    func migrateOnATerminal() throws {
        let database = try TestDatabase(prefix: "e2e_progress")
        defer { database.drop() }
        let files = try Self.migrationFiles()

        let result = try Terminal.run(try CardinalCLI.binary("cardinal"), ["migrate", "--database-url", database.url])

        #expect(result.exitStatus == 0, "\(result.standardOutput)")
        let screen = result.standardOutput
        for (index, file) in files.enumerated() {
            #expect(screen.contains("\(Self.redraw)migrate: applying \(file), \(index + 1) of \(files.count)…"), "\(file)")
        }
        let codeProgress = "\(Self.redraw)migrate: applying the \(try Self.codeFileCount()) code files…"
        let lastProgress = try #require(screen.range(of: "applying \(files.last ?? ""), \(files.count) of \(files.count)…"))
        #expect(screen[lastProgress.upperBound...].hasPrefix(codeProgress))
        let codeLine = try #require(screen.range(of: codeProgress))
        #expect(screen[codeLine.upperBound...].hasPrefix("\(Self.redraw)migrate: applied \(files[0])"),
                "the line is cleared before the summary")
    }

    @Test("Without a terminal, cardinal migrate writes only its summary lines to standard error")
    func migrateInCron() throws {
        let database = try TestDatabase(prefix: "e2e_progress")
        defer { database.drop() }
        let files = try Self.migrationFiles()

        let result = try CardinalCLI.run(["migrate", "--database-url", database.url])

        #expect(result.exitStatus == 0)
        #expect(result.standardError == files.map { "migrate: applied \($0)\n" }.joined()
                    + "migrate: applied the \(try Self.codeFileCount()) code files\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test("On a terminal, cardinal report run shows each step and each page written; without one, no progress line")
    func reportRun() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_progress")
        defer { database.drop() }
        try CardinalCLI.createApp("progress-app", databaseURL: database.url)
        let pages = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: pages) }
        let arguments = ["report", "run", "--database-url", database.url, "--html", pages.path]
        let steps = ["computing the unique-impressions report", "computing the control report",
                     "computing the anomalies report", "storing the results"]

        let terminal = try Terminal.run(try CardinalCLI.binary("cardinal"), arguments)
        let cron = try CardinalCLI.run(arguments)

        #expect(terminal.exitStatus == 0, "\(terminal.standardOutput)")
        for (index, step) in steps.enumerated() {
            #expect(terminal.standardOutput.contains("\(Self.redraw)report run: \(step), step \(index + 1) of 4…"))
        }
        // No campaign has events, so the run has one page: the index.
        #expect(terminal.standardOutput.contains(": writing page 1 of 1…\(Self.redraw)"))
        #expect(cron.exitStatus == 0)
        #expect(!cron.standardError.contains("\r") && !cron.standardError.contains("\u{1B}"), "\(cron.standardError)")
        #expect(cron.standardError.split(separator: "\n").allSatisfy { $0.hasPrefix("time=") }, "log lines only")
    }
}
