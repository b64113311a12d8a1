/// How `cardinal` prints results on standard output.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Aligned columns for a terminal.
    case table
    /// RFC 4180 CSV with a header row.
    case csv
    /// JSON: the stable contract that scripts use.
    case json
    /// A self-contained HTML page (inline style, no scripts), to mail or publish.
    case html
}
