import ArgumentKit
import CardinalStore
import PostgresClient

/// A command that reads or changes the database named by `--database-url` / `CARDINAL_DATABASE_URL`.
protocol DatabaseCommand: ParsableCommand {
    /// `--database-url`, declared with ``CommonOptions/databaseURL``.
    var databaseURL: Option<String> { get }
}

extension ParsedCommand where Command: DatabaseCommand {
    /// The connection string of `--database-url` / `CARDINAL_DATABASE_URL`.
    func connectionString() throws(UsageError) -> String {
        guard let url = self.databaseURL, !url.isEmpty else {
            throw usageError(
                "no database given: pass --database-url or set CARDINAL_DATABASE_URL (a libpq connection string or URI)"
            )
        }
        return url
    }

    /// Opens the database named by `--database-url` / `CARDINAL_DATABASE_URL`.
    func connect() throws -> PostgresConnection {
        try PostgresConnection(connectionString: try connectionString())
    }

    /// Opens the database for a report: a session set up by the store for the report functions.
    func connectForReports() throws -> ReportSession {
        try ReportSession(connection: try connect())
    }
}
