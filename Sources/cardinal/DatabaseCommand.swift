import ArgumentKit
import CardinalStore
import Foundation
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

    /// Opens the database for a report: a session set up by the store for the report functions. On a hot standby,
    /// says on standard error how far its replay is, since the report shows only what it replayed.
    func connectForReports() throws -> ReportSession {
        let connection = try connect()
        if let replay = try StandbyReplay.read(from: connection) {
            let age = replay.lastReplayedCommitAgeSeconds.map { String(format: "%.1f s old", $0) } ?? "none yet"
            Console.warn("report: reading a hot standby: last replayed commit \(age), "
                         + "\(replay.unreplayedBytes.formatted()) bytes of received WAL not replayed yet")
        }
        return try ReportSession(connection: connection)
    }
}
