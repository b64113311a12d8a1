public import CardinalStore
import Foundation
public import PostgresClient

/// A database of its own for one test: created empty with a unique name, dropped by `drop()`.
public final class TestDatabase: Sendable {
    /// The unique name.
    public let name: String
    /// Its libpq URL (superuser).
    public let url: String
    private let adminURL: String

    /// Creates a new, empty database.
    public init(prefix: String = "test") throws {
        var components = try TestEnvironment.adminDatabaseURL()
        adminURL = components.string ?? ""
        name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        components.path = "/" + name
        url = components.string ?? ""
        let admin = try PostgresConnection(connectionString: adminURL)
        try admin.executeScript("create database \(name)")
    }

    /// Creates a database and applies every migration of `SQL/migrations` and every code file of `SQL/code` to it
    /// with the real migrator.
    public static func migrated(prefix: String = "test") throws -> TestDatabase {
        let database = try TestDatabase(prefix: prefix)
        try migrator(for: database.connect()).migrate()
        return database
    }

    /// The real migrator with this checkout's migrations and code files.
    public static func migrator(for connection: PostgresConnection) throws -> Migrator {
        Migrator(connection: connection, migrations: try migrationDirectory.load(),
                 code: try migrationDirectory.loadCode())
    }

    /// The repository's `SQL/migrations`.
    public static var migrationDirectory: MigrationDirectory {
        MigrationDirectory(url: TestEnvironment.repositoryRoot.appendingPathComponent("SQL/migrations"))
    }

    /// A new connection to this database.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(connectionString: url)
    }

    /// Drops the database, ending its other sessions first.
    public func drop() {
        guard let admin = try? PostgresConnection(connectionString: adminURL) else {
            return
        }
        _ = try? admin.executeScript("drop database if exists \(name) with (force)")
    }
}
