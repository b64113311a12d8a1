import Foundation
import TestSupport

/// One dashboard of `Dashboards/`, read from its JSON with the fields the tests check: what Grafana requires
/// to load it, and every query with the datasource and template variables it needs.
struct GrafanaDashboard {
    /// A datasource reference, `{"type": …, "uid": …}`.
    struct DatasourceReference: Hashable, CustomStringConvertible {
        let type: String?
        let uid: String?

        init?(_ json: Any?) {
            guard let object = json as? [String: Any] else {
                return nil
            }
            type = object["type"] as? String
            uid = object["uid"] as? String
        }

        var description: String { "\(type ?? "?")/\(uid ?? "?")" }
    }

    /// One query of a panel: SQL (`rawSql`, `format`) or PromQL (`expr`).
    struct Target {
        let refID: String?
        let datasource: DatasourceReference?
        let format: String?
        let rawSQL: String?
        let expression: String?
    }

    /// A panel, rows' nested panels included.
    struct Panel {
        let id: Int?
        let type: String
        let title: String
        let datasource: DatasourceReference?
        let targets: [Target]
        /// The column names its field overrides match by name: a table panel shows them, so the query must
        /// return them.
        let overriddenFields: [String]
        /// `options.xField` of a bar chart: the column its bars are labelled by.
        let xField: String?
        /// `options.reduceOptions.fields` of a stat panel: a regular expression over column names.
        let reducedFields: String?
    }

    /// A template variable.
    struct Variable {
        let name: String
        let type: String
        let query: String
        let datasource: DatasourceReference?
        let multi: Bool
        let includeAll: Bool
        /// The custom "All" value, inserted as it is when All is selected.
        let allValue: String?
        /// The values selected when the dashboard opens (`$__all` for All).
        let currentValues: [String]

        /// The options of a `custom` variable: its comma-separated query.
        var customOptions: [String] {
            query.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    let fileName: String
    let json: [String: Any]
    let uid: String?
    let title: String?
    let schemaVersion: Int?
    let panels: [Panel]
    let variables: [Variable]

    /// Every `*.json` file of `Dashboards/`, sorted by name.
    static func all() throws -> [GrafanaDashboard] {
        let folder = TestEnvironment.repositoryRoot.appendingPathComponent("Dashboards")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try GrafanaDashboard(url: folder.appendingPathComponent($0)) }
    }

    /// Reads one dashboard file.
    init(url: URL) throws {
        fileName = url.lastPathComponent
        guard let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw SetupFailure(description: "\(fileName) is not a JSON object")
        }
        self.json = json
        uid = json["uid"] as? String
        title = json["title"] as? String
        schemaVersion = json["schemaVersion"] as? Int
        panels = Self.panels(in: json["panels"] as? [[String: Any]] ?? [])
        variables = ((json["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []).map(Self.variable)
    }

    /// The variable called `name`.
    func variable(_ name: String) -> Variable? {
        variables.first { $0.name == name }
    }

    private static func panels(in list: [[String: Any]]) -> [Panel] {
        list.flatMap { panel -> [Panel] in
            let nested = panels(in: panel["panels"] as? [[String: Any]] ?? [])
            let fieldConfig = panel["fieldConfig"] as? [String: Any]
            let overrides = fieldConfig?["overrides"] as? [[String: Any]] ?? []
            let options = panel["options"] as? [String: Any]
            let this = Panel(
                id: panel["id"] as? Int,
                type: panel["type"] as? String ?? "",
                title: panel["title"] as? String ?? "",
                datasource: DatasourceReference(panel["datasource"]),
                targets: (panel["targets"] as? [[String: Any]] ?? []).map { target in
                    Target(refID: target["refId"] as? String, datasource: DatasourceReference(target["datasource"]),
                           format: target["format"] as? String, rawSQL: target["rawSql"] as? String,
                           expression: target["expr"] as? String)
                },
                overriddenFields: overrides.compactMap { override in
                    let matcher = override["matcher"] as? [String: Any]
                    return matcher?["id"] as? String == "byName" ? matcher?["options"] as? String : nil
                },
                xField: options?["xField"] as? String,
                reducedFields: (options?["reduceOptions"] as? [String: Any])?["fields"] as? String
            )
            return [this] + nested
        }
    }

    private static func variable(_ json: [String: Any]) -> Variable {
        let current = (json["current"] as? [String: Any])?["value"]
        let values = (current as? [String]) ?? (current as? String).map { [$0] } ?? []
        return Variable(
            name: json["name"] as? String ?? "",
            type: json["type"] as? String ?? "",
            query: (json["query"] as? String) ?? ((json["query"] as? [String: Any])?["query"] as? String) ?? "",
            datasource: DatasourceReference(json["datasource"]),
            multi: json["multi"] as? Bool ?? false,
            includeAll: json["includeAll"] as? Bool ?? false,
            allValue: json["allValue"] as? String,
            currentValues: values
        )
    }
}
