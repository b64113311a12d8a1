import Foundation
import PostgresClient
import TestSupport

/// What most end-to-end tests start from: a fresh, migrated database with one app and its ingest key, made
/// with the real `cardinal` binary.
final class IngestFixture {
    /// The app's name.
    static let appName = "e2e-app"

    let database: TestDatabase
    /// The ingest key, as `cardinal keys create` printed it.
    let key: String

    /// Creates the database, the app and the key.
    init() throws {
        database = try TestDatabase.migrated(prefix: "e2e")
        do {
            try CardinalCLI.createApp(Self.appName, databaseURL: database.url)
            key = try CardinalCLI.createKey(app: Self.appName, databaseURL: database.url)
        } catch {
            database.drop()
            throw error
        }
    }

    deinit {
        database.drop()
    }

    /// Starts a daemon on this database.
    func startDaemon(_ options: [String] = []) throws -> DaemonProcess {
        try DaemonProcess(databaseURL: database.url, options: options)
    }

    /// A client of `daemon` with this fixture's key.
    func client(of daemon: DaemonProcess) -> IngestClient {
        IngestClient(port: daemon.port, key: key)
    }

    /// Reads the tables the daemon writes.
    func tables() throws -> EventTables {
        EventTables(connection: try database.connect())
    }
}
