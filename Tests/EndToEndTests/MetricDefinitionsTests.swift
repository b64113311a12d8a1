import Foundation
import Testing
import TestSupport

/// docs/metric-definitions.md names, for each metric, the test that checks Cardinal's number against an example
/// computed by hand; every test it names must exist, in the suite it names.
@Suite struct MetricDefinitionsTests {
    /// A test the page names: its suite's type name and its display name.
    private struct NamedTest: CustomStringConvertible {
        let suite: String
        let name: String
        var description: String { "\(suite): \"\(name)\"" }
    }

    /// The tests named in the page's table rows, as `Suite: "display name"` in the last cell.
    private static func namedTests() throws -> [NamedTest] {
        let page = try String(
            contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/metric-definitions.md"),
            encoding: .utf8
        )
        return page.split(separator: "\n").compactMap { line -> NamedTest? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 6, let colon = cells[4].range(of: ": \""), cells[4].hasSuffix("\"") else {
                return nil
            }
            let name = cells[4][colon.upperBound...].dropLast()
            return NamedTest(suite: String(cells[4][..<colon.lowerBound]), name: String(name))
        }
    }

    /// The text of every Swift file under Tests/.
    private static func testSources() throws -> [String] {
        let tests = TestEnvironment.repositoryRoot.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.map { try String(contentsOf: $0, encoding: .utf8) }
    }

    @Test("Every test the metric definitions page names exists in the suite it names")
    func namedTestsExist() throws {
        let named = try Self.namedTests()
        // One per row of the table.
        #expect(named.count == 18)
        let sources = try Self.testSources()
        for test in named {
            let suiteFiles = sources.filter { $0.contains("struct \(test.suite) ") }
            #expect(suiteFiles.contains { $0.contains("@Test(\"\(test.name)\")") }, "not found: \(test)")
        }
    }
}
