import CardinalStore
import Foundation
import PostgresClient
import Testing
import TestSupport

/// The code files of `SQL/code`: applied whole whenever one changed, in one transaction, and the only place a
/// function, view or trigger may come from.
@Suite struct CodeFilesTests {
    private static func code() throws -> [CodeFile] {
        try TestDatabase.migrationDirectory.loadCode()
    }

    private static func codeRuns(_ connection: PostgresConnection) throws -> Int {
        try connection.query("select count(*) from cardinal.schema_code")[0].decode(Int.self, at: 0)
    }

    @Test("An edited code file makes migrate apply every code file again, recorded as one more run")
    func editedFileAppliesAllAgain() throws {
        let database = try TestDatabase.migrated(prefix: "code")
        defer { database.drop() }
        let connection = try database.connect()
        var edited = try Self.code()
        let last = edited.count - 1
        edited[last] = CodeFile(fileName: edited[last].fileName, sql: edited[last].sql + "\n-- edited\n")

        let outcome = try Migrator(connection: connection, migrations: try TestDatabase.migrationDirectory.load(),
                                   code: edited).migrate()

        #expect(outcome.migrations.isEmpty)
        #expect(outcome.code.map(\.fileName) == edited.map(\.fileName))
        #expect(try Self.codeRuns(connection) == 2)
        let files = try connection.query(
            "select array_length(files, 1) from cardinal.schema_code order by applied_at desc limit 1")
        #expect(try files[0].decode(Int.self, at: 0) == edited.count)
    }

    @Test("A versioned migration makes migrate apply the unchanged code files again, so a view it dropped comes back")
    func versionedMigrationAppliesCodeAgain() throws {
        let database = try TestDatabase.migrated(prefix: "code")
        defer { database.drop() }
        let connection = try database.connect()
        let migrations = try TestDatabase.migrationDirectory.load()
        let next = migrations.last!.version + 1
        let dropping = Migration(version: next, name: "drop_latest_control",
                                 sql: "drop view cardinal.latest_control;")

        let outcome = try Migrator(connection: connection, migrations: migrations + [dropping],
                                   code: try Self.code()).migrate()

        #expect(outcome.migrations.map(\.version) == [next])
        #expect(outcome.code.count == (try Self.code()).count)
        #expect(try Self.codeRuns(connection) == 2)
        let view = try connection.query("select to_regclass('cardinal.latest_control') is not null")
        #expect(try view[0].decode(Bool.self, at: 0))
    }

    @Test("A view that mirrors another relation's columns carries that relation's column comments")
    func mirroredViewCarriesColumnComments() throws {
        let database = try TestDatabase.migrated(prefix: "code")
        defer { database.drop() }
        let rows = try database.connect().query(
            """
            select v.attname, col_description(v.attrelid, v.attnum) as view_comment,
                   col_description(t.attrelid, t.attnum) as table_comment
            from pg_attribute as v
            join pg_attribute as t on t.attrelid = 'cardinal.report_control'::regclass and t.attname = v.attname
            where v.attrelid = 'cardinal.latest_control'::regclass and v.attnum > 0
            """
        )

        #expect(rows.count > 30)
        for row in rows {
            let table = try row.decode(String?.self, column: "table_comment")
            #expect(table != nil)
            #expect(try row.decode(String?.self, column: "view_comment") == table)
        }
    }

    @Test("A function made by hand that no code file declares fails migrate with its name and rolls the run back")
    func undeclaredFunctionFailsMigrate() throws {
        let database = try TestDatabase.migrated(prefix: "code")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.executeScript("create function cardinal.stray_helper(n integer) returns integer language sql as 'select n'")
        var edited = try Self.code()
        edited[0] = CodeFile(fileName: edited[0].fileName, sql: edited[0].sql + "\n-- edited\n")

        let error = #expect(throws: MigrationError.self) {
            try Migrator(connection: connection, migrations: try TestDatabase.migrationDirectory.load(), code: edited)
                .migrate()
        }

        #expect(error == .undeclaredObjects(["function cardinal.stray_helper(integer)"]))
        #expect(error?.description.contains("versioned migration") == true)
        #expect(try Self.codeRuns(connection) == 1)
    }

    @Test("A code file that fails is named in the error and the code stays as it was")
    func failingCodeFileLeavesCodeAsItWas() throws {
        let database = try TestDatabase.migrated(prefix: "code")
        defer { database.drop() }
        let connection = try database.connect()
        let broken = CodeFile(fileName: "999_broken.sql", sql: """
            create or replace function cardinal.try_jsonb(value text) returns jsonb language sql as 'select null::jsonb';
            select * from cardinal.no_such_table;
            """)
        let before = try connection.query("select md5(prosrc) from pg_proc where oid = 'cardinal.try_jsonb'::regproc")[0]
            .decode(String.self, at: 0)

        let error = #expect(throws: MigrationError.self) {
            try Migrator(connection: connection, migrations: try TestDatabase.migrationDirectory.load(),
                         code: try Self.code() + [broken]).migrate()
        }

        guard case let .codeFileFailed(fileName, reason)? = error else {
            Issue.record("expected codeFileFailed, got \(String(describing: error))")
            return
        }
        #expect(fileName == "999_broken.sql")
        #expect(reason.contains("no_such_table"))
        let after = try connection.query("select md5(prosrc) from pg_proc where oid = 'cardinal.try_jsonb'::regproc")[0]
            .decode(String.self, at: 0)
        #expect(after == before)
        #expect(try Self.codeRuns(connection) == 1)
    }

    @Test("Every SQL-language body of the code files compiles against the migrated schema")
    func everyBodyCompiles() throws {
        // migrate applies the files with check_function_bodies off, since they are grouped by area rather than
        // by call order; with every object in place, applying them again with the check on must succeed.
        let database = try TestDatabase.migrated(prefix: "code")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.transaction { connection in
            try connection.execute("set local check_function_bodies = on")
            for file in try Self.code() {
                try connection.executeScript(file.sql)
            }
        }
        let sqlFunctions = try connection.query("""
            select count(*) from pg_proc
            where pronamespace = 'cardinal'::regnamespace and prolang = (select oid from pg_language where lanname = 'sql')
            """)[0].decode(Int.self, at: 0)
        #expect(sqlFunctions > 10)
    }
}
