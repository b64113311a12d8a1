import ArgumentKit
import CardinalReports

/// Options many commands declare, written once.
enum CommonOptions {
    /// `--database-url`, for a ``DatabaseCommand``.
    static let databaseURL = Option(
        "database-url", help: "libpq connection string or URI of the Cardinal database.", valueName: "url",
        environment: "CARDINAL_DATABASE_URL"
    )

    /// `--format`, for a ``ListingCommand``.
    static let format = RequiredOption(
        "format", help: "Output format: table, csv, json or html.", default: "table", parser: .oneOf(OutputFormat.self)
    )
}
