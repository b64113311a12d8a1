import Foundation
import TestSupport

/// The provisioning files of `Dashboards/provisioning/`, read for what the dashboards depend on: the uid and
/// type of each datasource, and the folder the dashboard provider loads.
///
/// The files are written in the small subset of YAML Grafana's own examples use (a list of mappings, one
/// `key: value` a line), which is all this reader understands; a test fails if it finds nothing.
struct GrafanaProvisioning {
    /// A provisioned datasource.
    struct Datasource: Hashable {
        let name: String
        let uid: String
        let type: String
    }

    let datasources: [Datasource]
    /// `options.path` of each dashboard provider.
    let dashboardPaths: [String]

    /// Reads `Dashboards/provisioning/datasources/*.yaml` and `dashboards/*.yaml`.
    init() throws {
        let folder = TestEnvironment.repositoryRoot.appendingPathComponent("Dashboards/provisioning")
        var datasources: [Datasource] = []
        for entry in try Self.listEntries(in: folder.appendingPathComponent("datasources"), list: "datasources") {
            guard let name = entry["name"], let uid = entry["uid"], let type = entry["type"] else {
                throw SetupFailure(description: "a provisioned datasource lacks its name, uid or type: \(entry)")
            }
            datasources.append(Datasource(name: name, uid: uid, type: type))
        }
        self.datasources = datasources
        dashboardPaths = try Self.listEntries(in: folder.appendingPathComponent("dashboards"), list: "providers")
            .compactMap { $0["path"] }
    }

    /// The mappings of the top-level list `list` in every YAML file of `folder`, each flattened to its
    /// `key: value` lines (nested keys included, comments and quotes dropped).
    private static func listEntries(in folder: URL, list: String) throws -> [[String: String]] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }.sorted()
        var entries: [[String: String]] = []
        for file in files {
            var inList = false
            for rawLine in try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else {
                    continue
                }
                if !line.hasPrefix(" ") && !line.hasPrefix("-") {
                    inList = line.hasPrefix("\(list):")
                    continue
                }
                guard inList else {
                    continue
                }
                var content = line.trimmingCharacters(in: .whitespaces)
                if content.hasPrefix("- ") {
                    entries.append([:])
                    content.removeFirst(2)
                }
                guard !entries.isEmpty, let colon = content.firstIndex(of: ":") else {
                    continue
                }
                let key = String(content[..<colon])
                let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                if !value.isEmpty, entries[entries.count - 1][key] == nil {
                    entries[entries.count - 1][key] = value
                }
            }
        }
        return entries
    }
}
