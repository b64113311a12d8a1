import Foundation
import Testing

/// Each dashboard of `Dashboards/` holds what Grafana needs to load it from the provisioning folder, and every
/// query names a provisioned datasource and defined variables only.
@Suite struct DashboardFileTests {
    private static let builtInVariables: Set<String> = ["__rate_interval", "__interval", "__range", "__interval_ms"]
    /// The panel types Grafana 10.4 ships that these dashboards use.
    private static let panelTypes: Set<String> = ["timeseries", "table", "stat", "bargauge", "barchart", "row"]

    @Test("There are five dashboards, with unique uids and titles and a schemaVersion Grafana 10.4 reads")
    func dashboardsLoad() throws {
        let dashboards = try GrafanaDashboard.all()
        #expect(dashboards.map(\.fileName) == [
            "cardinal-engagement.json", "cardinal-experiments.json", "cardinal-ingest.json",
            "cardinal-integration-health.json", "cardinal-reports.json",
        ])
        let uids = dashboards.compactMap(\.uid)
        #expect(uids.count == dashboards.count, "every dashboard has a uid")
        #expect(Set(uids).count == uids.count, "uids are unique: \(uids)")
        #expect(uids.allSatisfy { $0.count <= 40 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
        #expect(Set(dashboards.compactMap(\.title)).count == dashboards.count, "titles are unique")
        for dashboard in dashboards {
            #expect(dashboard.schemaVersion == 39, "\(dashboard.fileName)")
            #expect(dashboard.json["__inputs"] == nil, "\(dashboard.fileName): provisioning does not resolve __inputs")
            #expect(dashboard.json["id"] is NSNull, "\(dashboard.fileName): a provisioned dashboard has a null id")
        }
    }

    @Test("Panel ids are unique within each dashboard, and every panel has a known type, a title and a query")
    func panelsAreWellFormed() throws {
        for dashboard in try GrafanaDashboard.all() {
            let ids = dashboard.panels.compactMap(\.id)
            #expect(ids.count == dashboard.panels.count, "\(dashboard.fileName): every panel has an id")
            #expect(Set(ids).count == ids.count, "\(dashboard.fileName): panel ids \(ids) repeat")
            for panel in dashboard.panels {
                #expect(Self.panelTypes.contains(panel.type), "\(dashboard.fileName) \(panel.title): type \(panel.type)")
                #expect(!panel.title.isEmpty)
                guard panel.type != "row" else {
                    continue
                }
                #expect(!panel.targets.isEmpty, "\(dashboard.fileName) \(panel.title) has no query")
                let refIDs = panel.targets.compactMap(\.refID)
                #expect(refIDs.count == panel.targets.count && Set(refIDs).count == refIDs.count,
                        "\(dashboard.fileName) \(panel.title): refIds \(refIDs)")
            }
        }
    }

    @Test("Every datasource reference of panels, queries and variables is a datasource of the provisioning file")
    func datasourcesResolve() throws {
        let provisioning = try GrafanaProvisioning()
        let provisioned = Set(provisioning.datasources.map { GrafanaDashboard.DatasourceReference(["type": $0.type, "uid": $0.uid])! })
        #expect(Set(provisioning.datasources.map(\.type)) == ["grafana-postgresql-datasource", "prometheus"])
        #expect(Set(provisioning.datasources.map(\.uid)).count == provisioning.datasources.count, "datasource uids are unique")
        #expect(provisioning.dashboardPaths == ["${CARDINAL_GRAFANA_DASHBOARDS}"])
        var used: Set<GrafanaDashboard.DatasourceReference> = []
        for dashboard in try GrafanaDashboard.all() {
            for panel in dashboard.panels where panel.type != "row" {
                let references = [panel.datasource] + panel.targets.map(\.datasource)
                for reference in references {
                    let reference = try #require(reference, "\(dashboard.fileName) \(panel.title): a query without a datasource")
                    #expect(provisioned.contains(reference), "\(dashboard.fileName) \(panel.title): \(reference) is not provisioned")
                    used.insert(reference)
                }
                for target in panel.targets {
                    let isSQL = target.datasource?.type == "grafana-postgresql-datasource"
                    #expect(isSQL ? target.rawSQL != nil && target.format != nil : target.expression != nil,
                            "\(dashboard.fileName) \(panel.title): the query text is missing")
                }
            }
            for variable in dashboard.variables where variable.type == "query" {
                let reference = try #require(variable.datasource)
                #expect(provisioned.contains(reference), "\(dashboard.fileName) $\(variable.name): \(reference)")
            }
        }
        #expect(used == provisioned, "every provisioned datasource is used")
    }

    @Test("Every variable a query uses is defined before it, and every query variable has a query and a default")
    func variablesAreDefined() throws {
        for dashboard in try GrafanaDashboard.all() {
            var defined: Set<String> = Self.builtInVariables
            for variable in dashboard.variables {
                #expect(["query", "custom"].contains(variable.type), "\(dashboard.fileName) $\(variable.name)")
                #expect(!variable.query.isEmpty, "\(dashboard.fileName) $\(variable.name) has no query")
                #expect(Self.variablesUsed(in: variable.query).isSubset(of: defined),
                        "\(dashboard.fileName) $\(variable.name) refers to a variable defined after it")
                if variable.type == "custom" {
                    #expect(variable.currentValues.allSatisfy { $0 == "$__all" || variable.customOptions.contains($0) },
                            "\(dashboard.fileName) $\(variable.name): the default is one of the options")
                }
                defined.insert(variable.name)
            }
            for panel in dashboard.panels {
                for target in panel.targets {
                    let used = Self.variablesUsed(in: target.rawSQL ?? target.expression ?? "")
                    #expect(used.isSubset(of: defined),
                            "\(dashboard.fileName) \(panel.title): undefined \(used.subtracting(defined).sorted())")
                }
            }
        }
    }

    /// The `$name` and `${name}` references in `text` that are not macros (`$__name(`).
    static func variablesUsed(in text: String) -> Set<String> {
        var names: Set<String> = []
        for match in text.matches(of: #/\$\{(\w+)\}|\$(\w+)(\()?/#) where match.output.3 == nil {
            names.insert(String(match.output.1 ?? match.output.2 ?? ""))
        }
        return names
    }
}
