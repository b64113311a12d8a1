import ArgumentKit
import CardinalLogging
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

    /// `--log-level`, for a ``LoggingCommand``: the daemon's option and variable.
    static let logLevel = RequiredOption(
        "log-level", help: "Least severe log lines written to stderr when it is not a terminal.", valueName: "level",
        default: Logger.Level.info.name, environment: "CARDINAL_LOG_LEVEL", parser: .oneOf(Logger.Level.self)
    )

    /// `--log-format`, for a ``LoggingCommand``: the daemon's option and variable.
    static let logFormat = RequiredOption(
        "log-format", help: "logfmt, or json for collectors that parse lines.", valueName: "format",
        default: LogFormat.logfmt.rawValue, environment: "CARDINAL_LOG_FORMAT", parser: .oneOf(LogFormat.self)
    )
}
