import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing

/// Every query of every PostgreSQL dashboard, as Grafana would send it, runs as a member of cardinal_reader
/// on a database loaded through the daemon and a stored report run, and returns what its panel draws: rows,
/// and the columns its visualization needs. Each query runs with the variables at the workload's app and
/// campaign and the defaults, and once more for each variable that offers "All", with All.
@Suite struct DashboardSQLTests {
    @Test("Every PostgreSQL panel and variable query runs as the reader and returns the rows and columns its panel needs")
    func everyPanelRuns() throws {
        let fixture = try IngestFixture()
        try DashboardWorkload.load(into: fixture)
        let login = try ReaderLogin(database: fixture.database)
        let reader = try login.connect()
        let admin = try fixture.database.connect()
        let range = GrafanaTimeRange.last(seconds: 7 * 86_400)
        let picked = ["app": IngestFixture.appName, "campaign": DashboardWorkload.campaign]

        var statements = 0
        for dashboard in try GrafanaDashboard.all() where dashboard.panels.contains(where: \.isSQL) {
            var selections: [GrafanaVariableSelection] = []
            for variable in dashboard.variables {
                let options: [String]
                if variable.type == "custom" {
                    options = variable.customOptions
                } else {
                    let statement = try GrafanaSQLQuery.statement(variable.query, variables: selections, range: range)
                    options = try reader.query(statement, []).map { try $0.decode(String.self, at: 0) }
                }
                let choice: GrafanaVariableSelection.Choice
                if let value = picked[variable.name] {
                    #expect(options.contains(value), "\(dashboard.fileName) $\(variable.name) offers \(options)")
                    choice = .values([value])
                } else {
                    choice = variable.currentValues == ["$__all"] ? .all : .values(variable.currentValues)
                }
                selections.append(GrafanaVariableSelection(variable: variable, options: options, choice: choice))
            }
            // The defaults, then each variable that offers All at All.
            let variants = [selections] + selections.indices.filter { selections[$0].variable.includeAll }.map { index in
                var variant = selections
                variant[index] = GrafanaVariableSelection(variable: variant[index].variable, options: variant[index].options, choice: .all)
                return variant
            }
            for panel in dashboard.panels where panel.isSQL {
                for target in panel.targets {
                    for variables in variants {
                        let statement = try GrafanaSQLQuery.statement(try #require(target.rawSQL), variables: variables, range: range)
                        let context = "\(dashboard.fileName) «\(panel.title)» with \(variables.map { "\($0.variable.name)=\($0.choice)" })"
                        #expect(!statement.contains("$"), "\(context): left unexpanded:\n\(statement)")
                        let result = try PanelResult(statement: statement, reader: reader, admin: admin)
                        statements += 1
                        #expect(!result.rows.isEmpty, "\(context) returned no row:\n\(statement)")
                        try Self.check(result, of: panel, format: target.format, context: context)
                    }
                }
            }
        }
        // Engagement 7 panels, Integration health 5 × 3 (defaults, $app at All, $severity at All), Experiments 7, Reports 3.
        #expect(statements == 32)
    }

    /// What each visualization needs of its query's columns.
    private static func check(_ result: PanelResult, of panel: GrafanaDashboard.Panel, format: String?, context: String) throws {
        let columns = result.rows.columns
        if format == "time_series" {
            // sql_engine.go: a time series needs the column "time"; every other column is a number (a value)
            // or a string (a label); and data.LongToWide refuses rows not sorted by time.
            #expect(columns.contains("time"), "\(context): no time column in \(columns)")
            #expect([.time, .number].contains(result.kinds["time"]), "\(context): time is \(String(describing: result.kinds["time"]))")
            #expect(!result.columns(.number).filter { $0 != "time" }.isEmpty, "\(context): no numeric value column")
            #expect(columns.allSatisfy { $0 == "time" || [.number, .text].contains(result.kinds[$0]) },
                    "\(context): a column is neither a value nor a label: \(result.kinds)")
            let times = try result.rows.map { try $0.decode(String.self, column: "time") }
            let sortable = result.kinds["time"] == .number ? times.map { Double($0) ?? .nan }.map { String(format: "%020.3f", $0) } : times
            #expect(sortable == sortable.sorted(), "\(context): rows are not in time order")
        } else {
            #expect(format == "table", "\(context): format \(format ?? "none")")
        }
        for field in panel.overriddenFields {
            #expect(columns.contains(field), "\(context): the panel formats \(field), which the query does not return (\(columns))")
        }
        switch panel.type {
        case "stat":
            let pattern = try Regex(try #require(panel.reducedFields).trimmingCharacters(in: .init(charactersIn: "/")))
            #expect(result.columns(.number).contains { $0.wholeMatch(of: pattern) != nil }, "\(context): no numeric field to show")
        case "barchart":
            #expect(columns.contains(try #require(panel.xField)), "\(context): no x field")
            #expect(!result.columns(.number).isEmpty, "\(context): no bars")
        default:
            break
        }
    }
}

extension GrafanaDashboard.Panel {
    /// Whether the panel queries PostgreSQL.
    var isSQL: Bool { targets.contains { $0.datasource?.type == "grafana-postgresql-datasource" } }
}
