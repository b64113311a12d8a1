import ArgumentKit
import CardinalReports

/// `cardinal report unique-impressions`.
struct ReportUniqueImpressionsCommand: ScopedReportCommand {
    static let name = "unique-impressions"
    static let abstract = "Impressions, unique (daily) impressions, recipients, clicks, dismissals and their rates."
    static let discussion: String? = """
        The table shows the columns read first (message source, variant, channel, impressions, uniques, \
        clicks and click rates) to fit a terminal; --columns picks others, --wide shows all. CSV, JSON and \
        HTML always hold every column.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = ReportOptions.app
    let campaign = ReportOptions.campaign
    let from = ReportOptions.from
    let to = ReportOptions.to
    let by = ReportOptions.by
    let format = CommonOptions.format
    let columns = Option("columns", help: "The table's columns, in order, by their header names.", valueName: "a,b,c",
                         parser: .commaSeparated)
    let wide = Flag("wide", help: "Show every column in the table, as CSV has them.")
    let includeTest = ReportOptions.includeTest

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let columns = try tableColumns(parsed)
        let scope = try parsed.scope()
        let report = try UniqueImpressionsReport.run(session: try parsed.session(for: scope), scope: scope, by: parsed.by)
        Console.print(report.render(parsed.format, columns: columns))
    }

    /// The table's columns from `--columns` and `--wide`, checked before the database is asked anything.
    private static func tableColumns(_ parsed: ParsedCommand<Self>) throws(UsageError) -> TableColumns {
        guard parsed.columns != nil || parsed.wide else {
            return .standard
        }
        guard parsed.format == .table else {
            throw parsed.usageError("--columns and --wide choose the table's columns; \(parsed.format.rawValue) "
                                    + "always holds every column")
        }
        guard let names = parsed.columns else {
            return .all
        }
        guard !parsed.wide else {
            throw parsed.usageError("--columns and --wide cannot be combined: --wide shows every column")
        }
        let known = UniqueImpressionsReport.columnNames(breakdown: parsed.by)
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw parsed.usageError("no column '\(unknown)' in this report; its columns are "
                                    + known.joined(separator: ", "))
        }
        return .named(names)
    }
}
