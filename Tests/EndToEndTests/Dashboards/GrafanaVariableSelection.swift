/// The values of one template variable as a dashboard user picked them: what Grafana keeps in the variable's
/// `current`, with the options it offered.
struct GrafanaVariableSelection {
    /// Which of the options are selected.
    enum Choice: Hashable {
        /// "All": the custom `allValue` when the variable has one, else every option.
        case all
        /// These options (one for a single-value variable).
        case values([String])
    }

    let variable: GrafanaDashboard.Variable
    /// The options the variable offered: a custom variable's list, or what its query returned.
    let options: [String]
    let choice: Choice

    /// The selected values, with All resolved to every option; `nil` for a custom All value, which Grafana
    /// inserts as it is, unformatted (template_srv.ts: "skip formatting of custom all values").
    var values: [String]? {
        switch choice {
        case .all: variable.allValue == nil ? options : nil
        case let .values(values): values
        }
    }
}
