import CardinalStore
import Foundation
import Synchronization
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

@Suite struct MigratorTests {
    private func migrations() throws -> [Migration] {
        try TestDatabase.migrationDirectory.load()
    }

    @Test("Migrating an empty database applies every file in order and records each with a checksum")
    func migratesEmptyDatabase() throws {
        let database = try TestDatabase(prefix: "migrate")
        defer { database.drop() }
        let connection = try database.connect()
        let all = try migrations()
        let applied = try Migrator(connection: connection, migrations: all).migrate()
        #expect(applied.migrations.map(\.version) == all.map(\.version))
        let rows = try connection.query("select version, length(checksum) from cardinal.schema_migrations order by version")
        #expect(try rows.map { try $0.decode(Int.self, at: 0) } == all.map(\.version))
        #expect(try rows.allSatisfy { try $0.decode(Int.self, at: 1) == 64 })
    }

    @Test("A second run applies nothing and reports every migration as applied")
    func secondRunAppliesNothing() throws {
        let database = try TestDatabase.migrated(prefix: "migrate")
        defer { database.drop() }
        let migrator = try TestDatabase.migrator(for: try database.connect())
        #expect(try migrator.migrate().isEmpty)
        #expect(try migrator.status().allSatisfy { $0.appliedAt != nil })
    }

    @Test("A migration file changed after it was applied is refused with a message naming it")
    func changedFileIsRefused() throws {
        let database = try TestDatabase.migrated(prefix: "migrate")
        defer { database.drop() }
        var changed = try migrations()
        let first = changed[0]
        changed[0] = Migration(version: first.version, name: first.name, sql: first.sql + "\n-- edited\n")
        let error = #expect(throws: MigrationError.self) {
            try Migrator(connection: try database.connect(), migrations: changed).migrate()
        }
        guard case let .changedAfterApplied(fileName, _, _)? = error else {
            Issue.record("expected changedAfterApplied, got \(String(describing: error))")
            return
        }
        #expect(fileName == first.fileName)
    }

    @Test("A pending migration that fails leaves nothing behind and is not recorded")
    func failingMigrationLeavesNothing() throws {
        let database = try TestDatabase.migrated(prefix: "migrate")
        defer { database.drop() }
        let connection = try database.connect()
        let next = (try migrations().last?.version ?? 0) + 1
        let broken = Migration(
            version: next, name: "broken",
            sql: "create table cardinal.half_done (x int); select * from cardinal.no_such_table;"
        )
        #expect(throws: PostgresError.self) {
            try Migrator(connection: connection, migrations: try migrations() + [broken]).migrate()
        }
        #expect(try connection.query("select to_regclass('cardinal.half_done') is null").first?.decode(Bool.self, at: 0) == true)
        #expect(try connection.query("select count(*) from cardinal.schema_migrations where version = $1", [next])
            .first?.decode(Int.self, at: 0) == 0)
    }

    @Test("Two migrators racing on one database apply each migration and the code files exactly once")
    func concurrentMigratorsApplyOnce() throws {
        let database = try TestDatabase(prefix: "migrate")
        defer { database.drop() }
        let all = try migrations()
        let results = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let outcome = try? TestDatabase.migrator(for: try database.connect()).migrate()
            results.withLock { $0.append(outcome.map { $0.migrations.count + ($0.code.isEmpty ? 0 : 1000) } ?? -1) }
        }
        let counts = results.withLock { $0 }
        // The advisory lock makes the second run wait for the first, then find nothing left to do.
        #expect(counts.sorted() == [0, all.count + 1000])
        let count = try database.connect().query("select count(*) from cardinal.schema_migrations")
        #expect(try count[0].decode(Int.self, at: 0) == all.count)
        let codeRuns = try database.connect().query("select count(*) from cardinal.schema_code")
        #expect(try codeRuns[0].decode(Int.self, at: 0) == 1)
    }

    @Test("A fold that starts while migrate applies a migration finds the report state locked until the code files are back")
    func foldSkipsWhileMigrateApplies() throws {
        let database = try TestDatabase.migrated(prefix: "migrate")
        defer { database.drop() }
        let all = try migrations()
        // The pending migration waits for an advisory lock the test holds: the upgrade stands between its
        // migration and its code run for as long as the test wants.
        let gateKey = 4_242
        let waiting = Migration(version: all.last!.version + 1, name: "wait_for_the_test",
                                sql: "select pg_advisory_lock(\(gateKey)); select pg_advisory_unlock(\(gateKey));")
        let gateHeld = DispatchSemaphore(value: 0)
        let foldDuringUpgrade = Mutex<Result<Int64?, any Error>?>(nil)
        let upgrade = Mutex<Result<Migrator.Outcome, any Error>?>(nil)

        DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
                gateHeld.wait()
                let outcome = Result {
                    try Migrator(connection: try database.connect(), migrations: all + [waiting],
                                 code: try TestDatabase.migrationDirectory.loadCode()).migrate()
                }
                upgrade.withLock { $0 = outcome }
                return
            }
            let folded = Result { () throws -> Int64? in
                let gate = try database.connect()
                try gate.query("select pg_advisory_lock(\(gateKey))")
                gateHeld.signal()
                defer { _ = try? gate.query("select pg_advisory_unlock(\(gateKey))") }
                let probe = try database.connect()
                let deadline = Date.now.addingTimeInterval(60)
                while try !probe.query(
                    "select exists (select from pg_locks where locktype = 'advisory' and objid = \(gateKey) and not granted)"
                )[0].decode(Bool.self, at: 0) {
                    guard Date.now < deadline else { throw GateNeverReached() }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                return try probe.transaction(isolation: .repeatableRead) {
                    try $0.query("select cardinal.fold_report_state()")[0].decode(Int64?.self, at: 0)
                }
            }
            foldDuringUpgrade.withLock { $0 = folded }
        }

        // NULL: the fold found the state locked and folded nothing.
        #expect(try foldDuringUpgrade.withLock { $0 }?.get() == .some(nil))
        #expect(try upgrade.withLock { $0 }?.get().migrations.map(\.version) == [waiting.version])
        let after = try database.connect().transaction(isolation: .repeatableRead) {
            try $0.query("select cardinal.fold_report_state()")[0].decode(Int64?.self, at: 0)
        }
        #expect(after == 0)
    }

    /// `foldSkipsWhileMigrateApplies` waited a minute for the migration to block on the test's lock.
    private struct GateNeverReached: Error {}

    @Test("Migration files are read in version order and badly named files are refused")
    func directoryReadsInOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "select 2;".write(to: folder.appendingPathComponent("0010_later.sql"), atomically: true, encoding: .utf8)
        try "select 1;".write(to: folder.appendingPathComponent("0002_first.sql"), atomically: true, encoding: .utf8)
        let loaded = try MigrationDirectory(url: folder).load()
        #expect(loaded.map(\.version) == [2, 10])
        #expect(loaded.map(\.name) == ["first", "later"])
        try "select 3;".write(to: folder.appendingPathComponent("oops.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.badFileName("oops.sql")) { try MigrationDirectory(url: folder).load() }
    }
}
