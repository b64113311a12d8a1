import Foundation
import Testing

/// The expansion the dashboard tests rely on gives what Grafana gives: the expected strings are those of
/// Grafana's own pkg/tsdb/grafana-postgresql-datasource/macros_test.go, and of the variable formatting of
/// SqlDatasource.ts and the Prometheus datasource.
@Suite struct GrafanaMacroTests {
    /// macros_test.go: "Given a time range between 2018-04-12 00:00 and 2018-04-12 00:05" (18:00 UTC).
    private let range = GrafanaTimeRange(
        from: Date(timeIntervalSince1970: 1_523_556_000), to: Date(timeIntervalSince1970: 1_523_556_300))

    @Test("The PostgreSQL macros expand as Grafana's macros_test.go expects")
    func postgresMacros() throws {
        let cases: [(String, String)] = [
            ("select $__time(time_column)", "select time_column AS \"time\""),
            ("WHERE $__timeFilter(time_column)", "WHERE time_column BETWEEN '2018-04-12T18:00:00Z' AND '2018-04-12T18:05:00Z'"),
            ("select $__timeFrom()", "select '2018-04-12T18:00:00Z'"),
            ("select $__timeTo()", "select '2018-04-12T18:05:00Z'"),
            ("SELECT $__timeGroup(time_column,'5m'), value", "SELECT floor(extract(epoch from time_column)/300)*300 AS \"time\", value"),
            ("SELECT $__timeGroup(time_column,'5m') as time, value", "SELECT floor(extract(epoch from time_column)/300)*300 as time, value"),
            ("SELECT $__timeGroup(time_column,'5m')", "SELECT floor(extract(epoch from time_column)/300)*300"),
            ("SELECT $__timeGroupAlias(time_column,'5m')", "SELECT floor(extract(epoch from time_column)/300)*300 AS \"time\""),
            ("$__timeGroup(time_column , '5m')", "floor(extract(epoch from time_column)/300)*300"),
            ("select $__unixEpochFilter(time)", "select time >= 1523556000 AND time <= 1523556300"),
            ("SELECT $__timeGroupAlias(day, '1d', 0)", "SELECT floor(extract(epoch from day)/86400)*86400 AS \"time\""),
            ("select $__unixEpochFrom(), $__unixEpochTo()", "select 1523556000, 1523556300"),
        ]
        for (sql, expected) in cases {
            #expect(try GrafanaSQLQuery.expandMacros(sql, range: range) == expected, "\(sql)")
        }
        #expect(throws: GrafanaSQLQuery.MacroError.self) { try GrafanaSQLQuery.expandMacros("select $__nope(x)", range: range) }
    }

    @Test("Instants print as Go's RFC3339Nano and intervals as Go's %v of a float64")
    func goFormatting() {
        // macros_test.go: 1960-02-01T07:00:00.5Z, with the trailing zeros of the fraction dropped.
        #expect(GrafanaTimeRange.rfc3339Nano(Date(timeIntervalSince1970: -312_915_599.5)) == "1960-02-01T07:00:00.5Z")
        #expect(GrafanaTimeRange.rfc3339Nano(Date(timeIntervalSince1970: 1_523_556_000.125)) == "2018-04-12T18:00:00.125Z")
        #expect(GrafanaSQLQuery.goFloat(300) == "300")
        #expect(GrafanaSQLQuery.goFloat(604_800) == "604800")
        #expect(GrafanaSQLQuery.goFloat(1_036_800) == "1.0368e+06")
        #expect(GrafanaSQLQuery.goFloat(0.02) == "0.02")
    }

    @Test("SQL variables: a plain single value is escaped, a multi-value or All-capable one quoted, a custom All inserted as it is")
    func sqlVariables() {
        func variable(_ name: String, multi: Bool = false, includeAll: Bool = false, allValue: String? = nil) -> GrafanaDashboard.Variable {
            GrafanaDashboard.Variable(name: name, type: "custom", query: "", datasource: nil, multi: multi,
                                      includeAll: includeAll, allValue: allValue, currentValues: [])
        }
        let selections = [
            GrafanaVariableSelection(variable: variable("app"), options: ["o'neil"], choice: .values(["o'neil"])),
            GrafanaVariableSelection(variable: variable("one", includeAll: true, allValue: "NULL"), options: ["a"], choice: .values(["a"])),
            GrafanaVariableSelection(variable: variable("any", includeAll: true, allValue: "NULL"), options: ["a"], choice: .all),
            GrafanaVariableSelection(variable: variable("many", multi: true, includeAll: true), options: ["x", "y"], choice: .all),
            GrafanaVariableSelection(variable: variable("some", multi: true), options: ["x", "y"], choice: .values(["y"])),
        ]
        let sql = "'$app' $one $any (${many}) ($some) $app_name $__timeFilter(t)"
        #expect(GrafanaSQLQuery.substituteVariables(sql, selections)
            == "'o''neil' 'a' NULL ('x','y') ('y') $app_name $__timeFilter(t)")
    }

    @Test("PromQL variables: regular-expression characters escaped twice, several values as an alternation, All as its custom value")
    func promQLVariables() {
        let job = GrafanaDashboard.Variable(name: "job", type: "query", query: "", datasource: nil, multi: true,
                                            includeAll: true, allValue: ".*", currentValues: [])
        let range = GrafanaTimeRange(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 300))
        let all = GrafanaPromQLQuery.expression(
            "rate(x{job=~\"$job\"}[$__rate_interval]) $__range", variables: [.init(variable: job, options: [], choice: .all)],
            range: range, scrapeSeconds: 1)
        #expect(all.expression == "rate(x{job=~\".*\"}[4s]) 300s")
        #expect(all.stepSeconds == 1)
        let two = GrafanaPromQLQuery.expression(
            "x{job=~\"$job\"}", variables: [.init(variable: job, options: [], choice: .values(["127.0.0.1:80", "a|b"]))],
            range: range, scrapeSeconds: 15)
        #expect(two.expression == #"x{job=~"(127\\.0\\.0\\.1:80|a\\|b)"}"#)
    }
}
