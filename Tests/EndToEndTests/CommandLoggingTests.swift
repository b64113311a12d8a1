import Foundation
import Testing
import TestSupport

/// Under cron or systemd (standard error not a terminal) the long commands log their start, progress and outcome
/// in cardinald's format, chosen with --log-format / CARDINAL_LOG_FORMAT.
@Suite struct CommandLoggingTests {
    /// The `msg` of each logfmt line, in order.
    private static func messages(_ standardError: String) -> [String] {
        standardError.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: #" msg=""#), let end = line[start.upperBound...].firstIndex(of: "\"") else {
                return nil
            }
            return String(line[start.upperBound..<end])
        }
    }

    @Test("Without a terminal, cardinal report run logs its start, each step and its outcome as logfmt lines")
    func reportRunLogs() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cmdlog")
        defer { database.drop() }
        try CardinalCLI.createApp("log-app", databaseURL: database.url)
        let steps = ["computing the unique-impressions report", "computing the control report",
                     "computing the anomalies report", "storing the results"]

        let result = try CardinalCLI.run(["report", "run", "--database-url", database.url])

        #expect(result.exitStatus == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("time=") && $0.contains(#" cli.command="report run""#) }, "\(lines)")
        #expect(Self.messages(result.standardError)
                == ["report run started"] + Array(repeating: "report run step", count: 4) + ["report run finished"])
        for (index, step) in steps.enumerated() {
            #expect(result.standardError.contains(#"cli.step="report run: \#(step), step \#(index + 1) of 4""#), "\(step)")
        }
        let runID = result.standardOutput.trimmingCharacters(in: .newlines)
        #expect(lines.last?.contains("report.run_id=\(runID)") == true, "the outcome names the run: \(lines.last ?? "")")
    }

    @Test("With CARDINAL_LOG_FORMAT=json, cardinal state rebuild writes one JSON object a line")
    func stateRebuildLogsJSON() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cmdlog")
        defer { database.drop() }
        try CardinalCLI.createApp("log-app", databaseURL: database.url)

        let result = try ChildProcess.run(
            try CardinalCLI.binary("cardinal"), ["state", "rebuild", "--app", "log-app", "--database-url", database.url],
            environment: ["CARDINAL_LOG_FORMAT": "json"])

        #expect(result.exitStatus == 0, "\(result.standardError)")
        let objects = try result.standardError.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String], "\($0)")
        }
        #expect(objects.map { $0["msg"] } == ["state rebuild started", "state rebuild step", "state rebuild step",
                                              "state rebuild finished"])
        #expect(objects.last?["state.events"] == "0")
        #expect(objects.last?["cli.summary"]?.hasPrefix("state: rebuilt app log-app from 0 events") == true)
    }

    @Test("A failing command logs one error line with the reason and exits 1; --log-level error hides the rest")
    func failureIsLogged() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cmdlog")
        defer { database.drop() }

        let result = try CardinalCLI.run(["state", "rebuild", "--app", "nope", "--log-level", "error",
                                          "--database-url", database.url])

        #expect(result.exitStatus == 1)
        #expect(Self.messages(result.standardError) == ["state rebuild failed"], "\(result.standardError)")
        #expect(result.standardError.contains(#"error="no app named \"nope\";"#))
    }
}
