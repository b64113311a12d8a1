import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// The baseline and the code files against the migrations they replaced: a database built by the old files
/// 0001–0083 and then migrated by this release must end exactly where a new install does, with no data touched.
@Suite struct BaselineUpgradeTests {
    @Test("A database migrated to 0083 by the old files upgrades in place to the same catalog as a fresh install")
    func upgradedDatabaseEqualsFreshInstall() throws {
        let fresh = try TestDatabase.migrated(prefix: "fresh")
        defer { fresh.drop() }
        let upgraded = try TestDatabase(prefix: "upgraded")
        defer { upgraded.drop() }
        let connection = try upgraded.connect()
        let legacy = try LegacyMigrations.load()
        #expect(legacy.map(\.version).last == 83)
        try Migrator(connection: connection, migrations: legacy).migrate()
        let app = try AppStore(connection: connection).create(name: "kept")
        let before = try Self.rowCounts(connection)

        let outcome = try TestDatabase.migrator(for: connection).migrate()

        let afterBaseline = try TestDatabase.migrationDirectory.load().filter { $0.version > 83 }
        #expect(outcome.migrations == afterBaseline, "the baseline counts as applied: \(outcome.migrations.map(\.fileName))")
        #expect(!outcome.code.isEmpty)
        // The tables of the baseline keep their rows; those of later migrations start empty.
        let after = try Self.rowCounts(connection)
        #expect(after.filter { before[$0.key] != nil } == before, "no data touched")
        #expect(after.filter { before[$0.key] == nil }.allSatisfy { $0.value == 0 }, "\(after)")
        #expect(try AppStore(connection: connection).list().map(\.name).contains(app.name))
        let upgradedSnapshot = try SchemaSnapshot.take(of: upgraded.url, connection: connection)
        let freshSnapshot = try SchemaSnapshot.take(of: fresh.url, connection: try fresh.connect())
        #expect(upgradedSnapshot.catalog.count > 500)
        #expect(upgradedSnapshot == freshSnapshot,
                "\(upgradedSnapshot.differences(from: freshSnapshot).prefix(40).joined(separator: "\n"))")
    }

    @Test("Running migrate again after an upgrade applies nothing and changes no catalog row")
    func secondRunChangesNothing() throws {
        let database = try TestDatabase.migrated(prefix: "twice")
        defer { database.drop() }
        let connection = try database.connect()
        let before = try SchemaSnapshot.take(of: database.url, connection: connection)
        let catalogRows = try Self.catalogRowVersions(connection)

        let outcome = try TestDatabase.migrator(for: connection).migrate()

        #expect(outcome.isEmpty)
        #expect(try SchemaSnapshot.take(of: database.url, connection: connection) == before)
        #expect(try Self.catalogRowVersions(connection) == catalogRows, "not even rewritten in place")
    }

    @Test("A database that stopped below the baseline is refused with the release to upgrade through first")
    func databaseBelowBaselineIsRefused() throws {
        let database = try TestDatabase(prefix: "below")
        defer { database.drop() }
        let connection = try database.connect()
        try Migrator(connection: connection, migrations: try LegacyMigrations.load().filter { $0.version <= 50 }).migrate()

        let error = #expect(throws: MigrationError.self) { try TestDatabase.migrator(for: connection).migrate() }

        #expect(error == .belowBaseline(appliedVersion: 50, baselineVersion: 83))
        #expect(error?.description.contains("sql-legacy-0083") == true)
    }

    /// Rows per table of schema `cardinal`, the bookkeeping of the migrator aside.
    private static func rowCounts(_ connection: PostgresConnection) throws -> [String: Int] {
        let tables = try connection.query("""
            select c.oid::regclass::text from pg_class as c
            where c.relnamespace = 'cardinal'::regnamespace and c.relkind = 'r' and c.relname not like 'schema\\_%'
            """).map { try $0.decode(String.self, at: 0) }
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] = try connection.query("select count(*) from \(table)", [])[0].decode(Int.self, at: 0)
        }
        return counts
    }

    /// The row version of every catalog row of the functions, views and triggers: a run that rewrote them, even
    /// with the same text, shows here.
    private static func catalogRowVersions(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            select p.oid::regprocedure::text || ' ' || p.xmin::text from pg_proc as p
            where p.pronamespace = 'cardinal'::regnamespace
            union all
            select r.ev_class::regclass::text || ' ' || r.xmin::text from pg_rewrite as r
                join pg_class as c on c.oid = r.ev_class where c.relnamespace = 'cardinal'::regnamespace
            order by 1
            """).map { try $0.decode(String.self, at: 0) }
    }
}
