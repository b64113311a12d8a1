import ArgumentKit
import CardinalReports

/// A command that prints its result as a table, CSV, JSON or HTML, chosen with `--format`.
protocol ListingCommand: ParsableCommand {
    /// `--format`, declared with ``CommonOptions/format``.
    var format: RequiredOption<OutputFormat> { get }
}

extension ParsedCommand where Command: ListingCommand {
    /// Prints a listing in the chosen format; `json` is an array of objects keyed by the header.
    func printListing(_ table: TextTable) {
        switch self.format {
        case .table: Console.print(table.renderAligned())
        case .csv: Console.print(table.renderCSV())
        case .json: Console.print(table.renderJSON() + "\n")
        case .html: Console.print(table.renderHTML(title: "cardinal " + commandPath.dropFirst().joined(separator: " ")))
        }
    }
}
