import Foundation

/// What Grafana sends to Prometheus for a panel's `expr`: the template variables substituted by the browser,
/// then `$__rate_interval`, `$__interval` and `$__range` by the backend.
///
/// Follows Grafana's source (grafana/grafana, 10.4 and later):
/// - public/app/plugins/datasource/prometheus (and packages/grafana-prometheus) datasource.ts,
///   `interpolateQueryExpr`: a variable that is neither multi-value nor has "All" gets
///   `prometheusRegularEscape`; otherwise each value gets `prometheusSpecialRegexEscape` (regular-expression
///   characters escaped with two backslashes, as the string literal of a `=~` matcher needs), several joined
///   as `(a|b)`; a custom All value is inserted as it is (template_srv.ts);
/// - pkg/promlib/models/query.go: `$__interval` is the query's step, range ÷ max data points but at least
///   the datasource's scrape interval (`timeInterval`); `$__rate_interval` is
///   max($__interval + scrape interval, 4 × scrape interval) (`calculateRateInterval`); `$__range` the
///   range in whole seconds.
enum GrafanaPromQLQuery {
    /// The expression Grafana runs, and the step of its range query in seconds.
    static func expression(
        _ expr: String, variables: [GrafanaVariableSelection], range: GrafanaTimeRange, scrapeSeconds: Int,
        maxDataPoints: Int = 1_000
    ) -> (expression: String, stepSeconds: Int) {
        let rangeSeconds = range.to.timeIntervalSince(range.from)
        // Grafana rounds range ÷ max data points to a "nice" interval first; the tests keep it below the scrape
        // interval, where the rounding cannot matter, and say so here rather than reimplement it.
        precondition(rangeSeconds / Double(maxDataPoints) <= Double(scrapeSeconds),
                     "the test's range must keep $__interval at the scrape interval")
        let step = scrapeSeconds
        let rateInterval = max(step + scrapeSeconds, 4 * scrapeSeconds)
        let byName = Dictionary(variables.map { ($0.variable.name, $0) }, uniquingKeysWith: { first, _ in first })
        let substituted = expr.replacing(#/\$\{(\w+)\}|\$(\w+)/#) { match in
            let name = String(match.output.1 ?? match.output.2 ?? "")
            switch name {
            case "__rate_interval": return "\(rateInterval)s"
            case "__interval": return "\(step)s"
            case "__range": return "\(Int(rangeSeconds.rounded()))s"
            default: break
            }
            guard let selection = byName[name] else {
                return String(match.output.0)
            }
            guard let values = selection.values else {
                return selection.variable.allValue ?? ""
            }
            guard selection.variable.multi || selection.variable.includeAll else {
                return regularEscape(values.first ?? "")
            }
            let escaped = values.map(specialRegexEscape)
            return escaped.count == 1 ? escaped[0] : "(" + escaped.joined(separator: "|") + ")"
        }
        return (substituted, step)
    }

    /// prometheusRegularEscape (classic): `\` doubled, `'` escaped.
    static func regularEscape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\\\'")
    }

    /// prometheusSpecialRegexEscape (classic): `\` becomes four backslashes, each of `$^*{}[]+?.()|` gets two
    /// in front.
    static func specialRegexEscape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            if character == "\\" {
                escaped += "\\\\\\\\"
            } else if "$^*{}[]+?.()|".contains(character) {
                escaped += "\\\\" + String(character)
            } else {
                escaped.append(character)
            }
        }
        return escaped
    }
}
