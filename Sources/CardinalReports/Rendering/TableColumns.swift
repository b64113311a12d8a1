/// Which columns a report's terminal table shows: the few a person reads first, the ones named with
/// `--columns`, or every one with `--wide`. CSV, JSON and HTML always keep every column.
public enum TableColumns: Sendable, Equatable {
    /// The report's standard selection, made to fit a 120-column terminal.
    case standard
    /// These columns, in this order, by the names the table header and JSON use.
    case named([String])
    /// Every column, as CSV has them.
    case all
}
