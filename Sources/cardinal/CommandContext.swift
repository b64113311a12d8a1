import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation
import PostgresClient

/// What a command needs from its surroundings: its arguments, the database, and where to print.
struct CommandContext {
    let arguments: ParsedArguments

    /// Opens the database named by `--database-url` / `CARDINAL_DATABASE_URL`.
    func connect() throws -> PostgresConnection {
        guard let url = arguments.option("database-url"), !url.isEmpty else {
            throw arguments.usageError(
                "no database given: pass --database-url or set CARDINAL_DATABASE_URL (a libpq connection string or URI)"
            )
        }
        return try PostgresConnection(connectionString: url)
    }

    /// Opens the database for a report: a session set up by the store for the report functions.
    func connectForReports() throws -> ReportSession {
        try ReportSession(connection: try connect())
    }

    /// The `--format` chosen, table by default.
    var format: OutputFormat {
        arguments.option("format").flatMap(OutputFormat.init(rawValue:)) ?? .table
    }

    /// Writes scriptable output to standard output.
    func print(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes one line of human-readable information to standard error (never part of the scriptable output).
    func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints a listing in the chosen format; `json` is an array of objects keyed by the header.
    func printListing(_ table: TextTable) {
        switch format {
        case .table: print(table.renderAligned())
        case .csv: print(table.renderCSV())
        case .json: print(table.renderJSON() + "\n")
        case .html: print(table.renderHTML(title: "cardinal " + arguments.commandPath.dropFirst().joined(separator: " ")))
        }
    }
}

/// Options every command that talks to the database takes.
enum CommonOptions {
    static let databaseURL = OptionSpec(
        "database-url", help: "libpq connection string or URI of the Cardinal database.", valueName: "url",
        environment: "CARDINAL_DATABASE_URL"
    )

    static let format = OptionSpec(
        "format", help: "Output format: table, csv, json or html.", default: "table",
        allowedValues: OutputFormat.allCases.map(\.rawValue)
    )
}
