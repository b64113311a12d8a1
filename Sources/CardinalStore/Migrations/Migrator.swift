public import Foundation
public import PostgresClient

/// Applies migrations to a database: in order, each in its own transaction, recorded with a checksum,
/// under an advisory lock so that two `cardinal migrate` runs never apply the same file twice.
public struct Migrator {
    /// Where a migration stands in a database.
    public struct Status: Sendable, Equatable {
        /// The migration as found on disk.
        public let migration: Migration
        /// When it was applied, or `nil` while it is pending.
        public let appliedAt: Date?
    }

    /// The key of the session-level advisory lock that serialises migrators ("cardinal" in ASCII).
    static let advisoryLockKey: Int64 = 0x6361_7264_696E_616C

    private let connection: PostgresConnection
    private let migrations: [Migration]

    /// Prepares to migrate the database behind `connection` to `migrations`.
    public init(connection: PostgresConnection, migrations: [Migration]) {
        self.connection = connection
        self.migrations = migrations
    }

    /// Applies every pending migration and returns those it applied (empty when the database was up to date).
    /// - Parameter willApply: Called before each pending migration with its position among them (from 1) and
    ///   their number, for a progress line; a migration of a large table can take minutes.
    /// - Throws: `MigrationError` when an applied file changed or is missing; `PostgresError` from the server,
    ///   in which case the failing migration left nothing behind.
    @discardableResult
    public func migrate(
        willApply: (_ migration: Migration, _ position: Int, _ count: Int) -> Void = { _, _, _ in }
    ) throws -> [Migration] {
        try withLock {
            try bootstrap()
            let pending = try pendingMigrations()
            for (index, migration) in pending.enumerated() {
                willApply(migration, index + 1, pending.count)
                try apply(migration)
            }
            return pending
        }
    }

    /// Lists every migration on disk with the time it was applied, checking the applied ones' checksums.
    public func status() throws -> [Status] {
        try withLock {
            try bootstrap()
            let applied = try appliedMigrations()
            try verify(applied)
            return migrations.map { Status(migration: $0, appliedAt: applied[$0.version]?.appliedAt) }
        }
    }

    private struct AppliedMigration {
        let name: String
        let checksum: String
        let appliedAt: Date
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        try connection.query("select pg_advisory_lock($1)", [Self.advisoryLockKey])
        defer { _ = try? connection.query("select pg_advisory_unlock($1)", [Self.advisoryLockKey]) }
        return try body()
    }

    /// Creates the bookkeeping table; the only DDL that lives outside `SQL/migrations/`, because the
    /// migrator needs it before it can apply the first file.
    private func bootstrap() throws {
        try connection.executeScript(
            """
            create schema if not exists cardinal;
            create table if not exists cardinal.schema_migrations (
                version     integer primary key,
                name        text not null,
                checksum    text not null,
                applied_at  timestamptz not null default now(),
                duration_ms double precision not null
            );
            comment on table cardinal.schema_migrations is
                'Migrations applied by cardinal migrate, one row per SQL/migrations file.';
            comment on column cardinal.schema_migrations.version is 'The number the file name starts with.';
            comment on column cardinal.schema_migrations.name is 'The file name without number and extension.';
            comment on column cardinal.schema_migrations.checksum is
                'SHA-256 (hex) of the file as applied; a file changed later is refused.';
            comment on column cardinal.schema_migrations.applied_at is 'When the transaction that applied the migration began (it commits moments later).';
            comment on column cardinal.schema_migrations.duration_ms is 'How long the migration took to apply.';
            """
        )
    }

    private func appliedMigrations() throws -> [Int: AppliedMigration] {
        let rows = try connection.query("select version, name, checksum, applied_at from cardinal.schema_migrations")
        var applied: [Int: AppliedMigration] = [:]
        for row in rows {
            applied[try row.decode(Int.self, at: 0)] = AppliedMigration(
                name: try row.decode(String.self, at: 1),
                checksum: try row.decode(String.self, at: 2),
                appliedAt: try row.decode(Date.self, at: 3)
            )
        }
        return applied
    }

    private func verify(_ applied: [Int: AppliedMigration]) throws {
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = migrations.first(where: { $0.version == version }) else {
                throw MigrationError.missingFile(version: version, name: record.name)
            }
            let checksum = try self.checksum(of: migration)
            if checksum != record.checksum {
                throw MigrationError.changedAfterApplied(
                    fileName: migration.fileName, appliedChecksum: record.checksum, fileChecksum: checksum
                )
            }
        }
    }

    private func pendingMigrations() throws -> [Migration] {
        let applied = try appliedMigrations()
        try verify(applied)
        return migrations.filter { applied[$0.version] == nil }
    }

    /// SHA-256 computed by the server: Foundation on Linux has no hash functions, and the database is at hand.
    private func checksum(of migration: Migration) throws -> String {
        let rows = try connection.query("select encode(sha256(convert_to($1, 'UTF8')), 'hex')", [migration.sql])
        return try rows[0].decode(String.self, at: 0)
    }

    private func apply(_ migration: Migration) throws {
        let checksum = try self.checksum(of: migration)
        let started = ContinuousClock.now
        try connection.transaction { connection in
            try connection.executeScript(migration.sql)
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000
                + Double(elapsed.components.attoseconds) / 1e15
            try connection.execute(
                "insert into cardinal.schema_migrations (version, name, checksum, duration_ms) values ($1, $2, $3, $4)",
                [migration.version, migration.name, checksum, milliseconds]
            )
        }
    }
}
