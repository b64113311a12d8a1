public import Foundation
public import PostgresClient

/// Brings a database to a release's schema: first the pending versioned migrations, in order, each in its own
/// transaction and recorded with a checksum; then, when any code file changed since it was last applied or a
/// versioned migration ran (it may have dropped an object or changed a comment the code files build on), every
/// code file in order in one transaction. All of it under an advisory lock, so that two `cardinal migrate` runs
/// never apply the same file twice, and what it applies under the report state's lock too, so that no fold runs
/// between the migrations and the code files.
///
/// A baseline migration (``Migration/isBaseline``) squashes the files before it: a new database runs it, and a
/// database that an earlier release migrated up to the baseline's version counts as having applied it.
public struct Migrator {
    /// Where a migration stands in a database.
    public struct Status: Sendable, Equatable {
        /// The migration as found on disk.
        public let migration: Migration
        /// When it was applied, or `nil` while it is pending.
        public let appliedAt: Date?
    }

    /// What one run applied.
    public struct Outcome: Sendable, Equatable {
        /// The versioned migrations applied, in order.
        public let migrations: [Migration]
        /// The code files applied: all of them when any had changed or a versioned migration ran, else none.
        public let code: [CodeFile]

        /// Whether the database was already up to date.
        public var isEmpty: Bool { migrations.isEmpty && code.isEmpty }
    }

    /// The key of the session-level advisory lock that serialises migrators ("cardinal" in ASCII).
    static let advisoryLockKey: Int64 = 0x6361_7264_696E_616C

    private let connection: PostgresConnection
    private let migrations: [Migration]
    private let code: [CodeFile]

    /// Prepares to migrate the database behind `connection` to `migrations`, then to the code files `code`.
    public init(connection: PostgresConnection, migrations: [Migration], code: [CodeFile] = []) {
        self.connection = connection
        self.migrations = migrations
        self.code = code
    }

    /// Applies every pending migration, then the code files when they changed or a migration ran, and says what
    /// it applied.
    /// - Parameters:
    ///   - willApply: Called before each pending migration with its position among them (from 1) and their
    ///     number, for a progress line; a migration of a large table can take minutes.
    ///   - willApplyCode: Called before the code files are applied, with their number.
    /// - Throws: `MigrationError` when an applied file changed or is missing, the database is below the
    ///   baseline, a code file fails or leaves an object undeclared; `PostgresError` from the server. A failing
    ///   migration or code run leaves nothing behind.
    @discardableResult
    public func migrate(
        willApply: (_ migration: Migration, _ position: Int, _ count: Int) -> Void = { _, _, _ in },
        willApplyCode: (_ count: Int) -> Void = { _ in }
    ) throws -> Outcome {
        try withLock {
            try bootstrap()
            let pending = try pendingMigrations()
            let appliesCode = try !code.isEmpty && (!pending.isEmpty || lastCodeRun().changed)
            guard !pending.isEmpty || appliesCode else {
                return Outcome(migrations: [], code: [])
            }
            return try holdingReportState {
                for (index, migration) in pending.enumerated() {
                    willApply(migration, index + 1, pending.count)
                    try apply(migration)
                }
                guard appliesCode else {
                    return Outcome(migrations: pending, code: [])
                }
                willApplyCode(code.count)
                try applyCode()
                return Outcome(migrations: pending, code: code)
            }
        }
    }

    /// Lists every migration on disk with the time it was applied, checking the applied ones' checksums.
    public func status() throws -> [Status] {
        try withLock {
            try bootstrap()
            let applied = try appliedMigrations()
            try verify(applied)
            let baselineAppliedAt = baseline.flatMap { applied[$0.version]?.appliedAt }
            return migrations.map {
                Status(migration: $0, appliedAt: $0.isBaseline ? baselineAppliedAt : applied[$0.version]?.appliedAt)
            }
        }
    }

    /// Whether the code files differ from those last applied (or were never applied), checking the lock-free
    /// way; `migrate` decides again under the lock.
    public func codeStatus() throws -> (applied: Date?, changed: Bool) {
        try bootstrap()
        return try lastCodeRun()
    }

    /// When the code files were last applied, and whether they changed since; needs the bookkeeping tables.
    private func lastCodeRun() throws -> (applied: Date?, changed: Bool) {
        let columns = Self.codeColumns
        let rows = try connection.query(
            """
            select \(columns.selectList) from \(columns.objectName)
            order by \(identifier: columns["applied_at"]) desc limit 1
            """
        )
        let appliedAt = try rows.first.map { try $0.decode(Date.self, column: columns["applied_at"]) }
        let checksum = try rows.first.map { try $0.decode(String.self, column: columns["checksum"]) }
        return (appliedAt, try checksum != codeChecksum())
    }

    private struct AppliedMigration {
        let name: String
        let checksum: String
        let appliedAt: Date
    }

    private var baseline: Migration? {
        migrations.first(where: \.isBaseline)
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        try holdingAdvisoryLock(Self.advisoryLockKey, body)
    }

    /// Runs `body` holding the session-level advisory lock `key`, released however `body` ends.
    private func holdingAdvisoryLock<T>(_ key: Int64, _ body: () throws -> T) throws -> T {
        try connection.query("select pg_advisory_lock(\(key))")
        defer { _ = try? connection.query("select pg_advisory_unlock(\(key))") }
        return try body()
    }

    /// Runs `body` holding the report state's advisory lock (`cardinal.report_state_lock_key()`), when the schema
    /// has one, for the whole session.
    ///
    /// Each versioned migration commits on its own, and the code files after them: a fold in between would run
    /// on the old code against the new tables, or miss a trigger that a migration dropped and a code file makes
    /// again (0100 merged two counting triggers of `report_control_exposures`). A fold and a requeue take the
    /// same lock (the fold with a try, so cardinald's fold skips its rounds until the upgrade is done); the
    /// migrator first waits for a fold already running. A database without the function has no fold yet.
    private func holdingReportState<T>(_ body: () throws -> T) throws -> T {
        let lockable = try connection.query(
            "select to_regprocedure('cardinal.report_state_lock_key()') is not null as lockable"
        )
        guard try lockable[0].decode(Bool.self, column: "lockable") else {
            return try body()
        }
        // The key is read once: a code file may change the function, and the unlock must name what was locked.
        let key = try connection.query("select cardinal.report_state_lock_key() as key")[0]
            .decode(Int64.self, column: "key")
        return try holdingAdvisoryLock(key, body)
    }

    /// Creates the bookkeeping tables; the only DDL that lives outside `SQL/`, because the migrator needs them
    /// before it can apply the first file.
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
                'Versioned migrations applied by cardinal migrate, one row per SQL/migrations file. A database '
                'migrated by a release before the baseline also keeps the rows of the files the baseline squashed.';
            comment on column cardinal.schema_migrations.version is 'The number the file name starts with.';
            comment on column cardinal.schema_migrations.name is 'The file name without number and extension.';
            comment on column cardinal.schema_migrations.checksum is
                'SHA-256 (hex) of the file as applied; a file changed later is refused.';
            comment on column cardinal.schema_migrations.applied_at is 'When the transaction that applied the migration began (it commits moments later).';
            comment on column cardinal.schema_migrations.duration_ms is 'How long the migration took to apply.';
            create table if not exists cardinal.schema_code (
                applied_at  timestamptz primary key default now(),
                checksum    text not null,
                files       text[] not null,
                duration_ms double precision not null
            );
            comment on table cardinal.schema_code is
                'Each time cardinal migrate applied the code files of SQL/code (functions, views, triggers), which '
                'it does whenever one of them changed: one row per run.';
            comment on column cardinal.schema_code.applied_at is 'When the transaction that applied the files began.';
            comment on column cardinal.schema_code.checksum is
                'SHA-256 (hex) of every file name and text, in order: the next migrate applies the files again when it differs.';
            comment on column cardinal.schema_code.files is 'The files applied, in order, each as name:SHA-256.';
            comment on column cardinal.schema_code.duration_ms is 'How long applying them took.';
            """
        )
    }

    private func appliedMigrations() throws -> [Int: AppliedMigration] {
        let columns = Self.migrationColumns
        let rows = try connection.query("select \(columns.selectList) from \(columns.objectName)")
        var applied: [Int: AppliedMigration] = [:]
        for row in rows {
            applied[try row.decode(Int.self, column: columns["version"])] = AppliedMigration(
                name: try row.decode(String.self, column: columns["name"]),
                checksum: try row.decode(String.self, column: columns["checksum"]),
                appliedAt: try row.decode(Date.self, column: columns["applied_at"])
            )
        }
        return applied
    }

    /// Checks the applied migrations against the files. Versions up to the baseline that an earlier release
    /// applied were squashed into it: their files are gone, so they are not checked.
    private func verify(_ applied: [Int: AppliedMigration]) throws {
        if let baseline {
            if let early = migrations.first(where: { $0.version < baseline.version }) {
                throw MigrationError.migrationBeforeBaseline(fileName: early.fileName, baselineFileName: baseline.fileName)
            }
            if let newest = applied.keys.max(), applied[baseline.version] == nil {
                guard newest > baseline.version else {
                    throw MigrationError.belowBaseline(appliedVersion: newest, baselineVersion: baseline.version)
                }
            }
        }
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            if let baseline, version <= baseline.version, record.name != Migration.baselineName {
                continue
            }
            guard let migration = migrations.first(where: { $0.version == version }) else {
                throw MigrationError.missingFile(version: version, name: record.name)
            }
            let checksum = try self.checksum(of: migration.sql)
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
    private func checksum(of text: String) throws -> String {
        let rows = try connection.query("select encode(sha256(convert_to(\(text), 'UTF8')), 'hex') as checksum")
        return try rows[0].decode(String.self, column: "checksum")
    }

    private func apply(_ migration: Migration) throws {
        let checksum = try self.checksum(of: migration.sql)
        let started = ContinuousClock.now
        try connection.transaction { connection in
            try connection.executeScript(migration.sql)
            try connection.execute(
                """
                insert into cardinal.schema_migrations (version, name, checksum, duration_ms)
                values (\(migration.version), \(migration.name), \(checksum), \(Self.milliseconds(since: started)))
                """
            )
        }
    }

    /// One checksum over every code file's name, length and text, in order: renaming, adding or removing a file
    /// counts as a change as much as editing one.
    private func codeChecksum() throws -> String {
        try checksum(of: code.map { "\($0.fileName) \($0.sql.utf8.count)\n\($0.sql)" }.joined())
    }

    /// Applies every code file in one transaction, then refuses the result if the schema holds a function, view
    /// or trigger that no file declared.
    ///
    /// Function bodies are not checked while the files apply (`check_function_bodies`, as pg_restore does): the
    /// files group objects by area, not in the order they call each other. Views and triggers are still checked,
    /// so their files come after what they read.
    private func applyCode() throws {
        let checksum = try codeChecksum()
        let files = try code.map { "\($0.fileName):\(try self.checksum(of: $0.sql))" }
        let started = ContinuousClock.now
        try connection.transaction { connection in
            try connection.execute("set local check_function_bodies = off")
            for file in code {
                do {
                    try connection.executeScript(file.sql)
                } catch let error as PostgresError {
                    throw MigrationError.codeFileFailed(fileName: file.fileName, reason: error.description)
                }
            }
            let undeclared = try connection.query(Self.undeclaredObjectsQuery).map { try $0.decode(String.self, column: "object") }
            guard undeclared.isEmpty else {
                throw MigrationError.undeclaredObjects(undeclared)
            }
            try connection.execute(
                """
                insert into cardinal.schema_code (checksum, files, duration_ms)
                values (\(checksum), string_to_array(\(files.joined(separator: "\n")), E'\\n'),
                        \(Self.milliseconds(since: started)))
                """
            )
        }
    }

    /// The functions, views and triggers of schema `cardinal` that this transaction did not write: every code
    /// file object is created with CREATE OR REPLACE, which rewrites its catalog row even when nothing changed,
    /// so a row with an older `xmin` belongs to an object no file declares. Functions that a table depends on
    /// (a CHECK, a column default, an index expression) are versioned with the tables and not looked at, and so
    /// are the copies of a partitioned table's triggers on its partitions.
    static let undeclaredObjectsQuery: PostgresQuery = """
        with this_transaction as (
            select (pg_current_xact_id()::text::bigint % 4294967296)::text::xid as xid
        )
        select format('function %s', p.oid::regprocedure) as object
        from pg_catalog.pg_proc as p, this_transaction as t
        where p.pronamespace = 'cardinal'::regnamespace
          and p.xmin <> t.xid
          and not exists (select
                          from pg_catalog.pg_depend as d
                          where d.refclassid = 'pg_catalog.pg_proc'::regclass
                            and d.refobjid = p.oid
                            and d.classid in ('pg_catalog.pg_constraint'::regclass, 'pg_catalog.pg_attrdef'::regclass,
                                              'pg_catalog.pg_class'::regclass))
        union all
        select format('view %s', c.oid::regclass)
        from pg_catalog.pg_class as c
             join pg_catalog.pg_rewrite as r on r.ev_class = c.oid,
             this_transaction as t
        where c.relnamespace = 'cardinal'::regnamespace and c.relkind = 'v' and r.xmin <> t.xid
        union all
        select format('trigger %I on %s', g.tgname, g.tgrelid::regclass)
        from pg_catalog.pg_trigger as g
             join pg_catalog.pg_class as c on c.oid = g.tgrelid,
             this_transaction as t
        where c.relnamespace = 'cardinal'::regnamespace
          and not g.tgisinternal
          and g.tgparentid = 0
          and g.xmin <> t.xid
        order by 1
        """

    private static func milliseconds(since started: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
