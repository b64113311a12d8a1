import Foundation

/// What Grafana sends to PostgreSQL for a panel's `rawSql`: the template variables substituted by the browser,
/// then the global and PostgreSQL macros expanded by the backend.
///
/// Follows Grafana's source, read for this (grafana/grafana, main, 2025):
/// - public/app/features/plugins/sql/datasource/SqlDatasource.ts, `interpolateVariable`: a single value of a
///   variable that is neither multi-value nor has "All" is inserted with its `'` doubled and no quotes; any
///   other value is a quoted literal (`'…'`, `'` doubled), several joined by `,`;
/// - public/app/features/templating/template_srv.ts, `replace`: `$name` and `${name}`; a custom All value is
///   inserted as it is; without one, All means every option;
/// - pkg/tsdb/grafana-postgresql-datasource/sqleng/sql_engine.go, `Interpolate`: `$__unixEpochFrom()` and
///   `$__unixEpochTo()`;
/// - pkg/tsdb/grafana-postgresql-datasource/macros.go, `Interpolate` and `evaluateMacro`: every
///   `$name(arguments)` (arguments split at `,` and trimmed, no `)` inside) is a macro; an unknown one is an
///   error. `$__timeFilter(c)` is `c BETWEEN '<from>' AND '<to>'` (RFC 3339 with nanoseconds, UTC),
///   `$__timeFrom()`/`$__timeTo()` the quoted instants, `$__timeGroup(c, 'i')` is
///   `floor(extract(epoch from c)/<s>)*<s>` with the interval in seconds printed by Go's `%v` (and ` AS "time"`
///   for `$__timeGroupAlias`, or when the macro is directly followed by `,`: the pre-5.3 compatibility rule),
///   an optional third argument only sets the fill mode; `$__unixEpochFilter(c)` is
///   `c >= <from> AND c <= <to>` in epoch seconds; `$__time(c)` is `c AS "time"`.
enum GrafanaSQLQuery {
    /// A macro Grafana would refuse.
    struct MacroError: Error, CustomStringConvertible {
        let description: String
    }

    /// The statement Grafana runs for `rawSQL` with these variable selections over `range`.
    static func statement(_ rawSQL: String, variables: [GrafanaVariableSelection], range: GrafanaTimeRange) throws -> String {
        try expandMacros(substituteVariables(rawSQL, variables), range: range)
    }

    /// Replaces `$name` and `${name}` of the given variables; other names (macros) stay.
    static func substituteVariables(_ sql: String, _ variables: [GrafanaVariableSelection]) -> String {
        let byName = Dictionary(variables.map { ($0.variable.name, $0) }, uniquingKeysWith: { first, _ in first })
        return sql.replacing(#/\$\{(\w+)\}|\$(\w+)/#) { match in
            let name = String(match.output.1 ?? match.output.2 ?? "")
            guard let selection = byName[name] else {
                return String(match.output.0)
            }
            return formatted(selection)
        }
    }

    private static func formatted(_ selection: GrafanaVariableSelection) -> String {
        guard let values = selection.values else {
            return selection.variable.allValue ?? ""
        }
        let variable = selection.variable
        // Grafana keeps a multi-value variable's value as an array, and All without a custom value is an array.
        if variable.multi || selection.choice == .all {
            return values.map(quoteLiteral).joined(separator: ",")
        }
        let value = values.first ?? ""
        return variable.includeAll ? quoteLiteral(value) : value.replacingOccurrences(of: "'", with: "''")
    }

    /// PostgresQueryModel.quoteLiteral.
    private static func quoteLiteral(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Expands the global and PostgreSQL macros.
    static func expandMacros(_ sql: String, range: GrafanaTimeRange) throws -> String {
        let global = sql
            .replacingOccurrences(of: "$__unixEpochFrom()", with: String(GrafanaTimeRange.unixSeconds(range.from)))
            .replacingOccurrences(of: "$__unixEpochTo()", with: String(GrafanaTimeRange.unixSeconds(range.to)))
        var failure: MacroError?
        let expanded = global.replacing(#/\$([_a-zA-Z0-9]+)\(([^\)]*)\)/#) { match in
            var name = String(match.output.1)
            let whole = String(match.output.0)
            // macros.go looks for the first occurrence of the same text in the statement being expanded.
            if name == "__timeGroup", let found = global.range(of: whole), global[found.upperBound...].first == "," {
                name = "__timeGroupAlias"
            }
            let arguments = match.output.2.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .init(charactersIn: " ")) }
            do throws(MacroError) {
                return try macro(name, arguments, range)
            } catch {
                failure = failure ?? error
                return "macro_error()"
            }
        }
        if let failure {
            throw failure
        }
        return expanded
    }

    private static func macro(_ name: String, _ arguments: [String], _ range: GrafanaTimeRange) throws(MacroError) -> String {
        let from = GrafanaTimeRange.rfc3339Nano(range.from)
        let to = GrafanaTimeRange.rfc3339Nano(range.to)
        let column = arguments.first ?? ""
        switch name {
        case "__time":
            return "\(try required(column, name)) AS \"time\""
        case "__timeFilter":
            return "\(try required(column, name)) BETWEEN '\(from)' AND '\(to)'"
        case "__timeFrom":
            return "'\(from)'"
        case "__timeTo":
            return "'\(to)'"
        case "__timeGroup", "__timeGroupAlias":
            guard arguments.count >= 2, let seconds = intervalSeconds(arguments[1]) else {
                throw MacroError(description: "macro \(name) needs time column and interval and optional fill value")
            }
            let group = "floor(extract(epoch from \(column))/\(goFloat(seconds)))*\(goFloat(seconds))"
            return name == "__timeGroup" ? group : group + " AS \"time\""
        case "__unixEpochFilter":
            let column = try required(column, name)
            return "\(column) >= \(GrafanaTimeRange.unixSeconds(range.from)) AND \(column) <= \(GrafanaTimeRange.unixSeconds(range.to))"
        default:
            throw MacroError(description: "unknown macro \"\(name)\"")
        }
    }

    private static func required(_ column: String, _ name: String) throws(MacroError) -> String {
        guard !column.isEmpty else {
            throw MacroError(description: "missing time column argument for macro \(name)")
        }
        return column
    }

    /// gtime.ParseInterval of `'5m'`, `1d`, `1w` …: the interval in seconds.
    static func intervalSeconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .init(charactersIn: "'"))
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800)]
        for (unit, seconds) in units where trimmed.hasSuffix(unit) {
            if let count = Double(trimmed.dropLast(unit.count)) {
                return count * seconds
            }
        }
        return nil
    }

    /// Go's `%v` of a float64: the shortest decimal, in exponent form when the exponent is below -4 or at
    /// least 6 (strconv's `%g` with the shortest precision), e.g. `300`, `86400`, `1.0368e+06`, `0.02`.
    static func goFloat(_ value: Double) -> String {
        let exponent = value == 0 ? 0 : Int(log10(abs(value)).rounded(.down))
        func shortest(_ number: Double) -> String {
            let text = "\(number)"
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
        guard exponent < -4 || exponent >= 6 else {
            return shortest(value)
        }
        let mantissa = value / pow(10, Double(exponent))
        return shortest(mantissa) + "e" + (exponent < 0 ? "-" : "+") + String(format: "%02d", abs(exponent))
    }
}
