import CardinalCore
import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

@Suite struct SchemaTests {
    @Test(
        "After migrating, every object and column is commented and every grant follows the role model",
        arguments: ["uncommented_columns.sql", "uncommented_objects.sql", "privilege_drift.sql"]
    )
    func schemaChecksFindNothing(check: String) throws {
        let database = try TestDatabase.migrated(prefix: "schema")
        defer { database.drop() }
        let query = try String(
            contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("SQL/checks/\(check)"), encoding: .utf8
        )
        let problems = try database.connect().query(query, [])
        #expect(problems.isEmpty, "\(check): \(problems.map { "\($0[0] ?? "") \($0[1] ?? "")" })")
    }

    @Test("The ingest role writes events through the writer but cannot read what users did")
    func ingestRoleWritesButCannotRead() throws {
        let database = try TestDatabase.migrated(prefix: "roles")
        defer { database.drop() }
        let app = try AppStore(connection: try database.connect()).create(name: "shop")
        let connection = try database.connect()
        try connection.execute("set role cardinal_ingest")
        let event = Event(id: UUID(), type: .impression, channel: .banner, time: .now, userID: "u",
                          source: .campaign("c"))
        let inserted = try EventWriter(connection: connection)
            .write(events: [EventRecord(appID: app.id, event: event, receivedAt: .now)], rejections: [])
        #expect(inserted == [true])
        let error = #expect(throws: PostgresError.self) {
            try connection.query("select user_id, properties from cardinal.events")
        }
        #expect(error?.sqlState == .insufficientPrivilege)
        // It may read the key columns (app_id, time, id), which RETURNING needs to tell stored from duplicate.
        #expect(try connection.query("select count(id) from cardinal.events")[0].decode(Int.self, at: 0) == 1)
    }

    @Test("The ingest role resolves keys and reads the settings, but not apps nor campaign settings")
    func ingestRoleReadsOnlyWhatTheDaemonReads() throws {
        let database = try TestDatabase.migrated(prefix: "roles")
        defer { database.drop() }
        let owner = try database.connect()
        let app = try AppStore(connection: owner).create(name: "shop")
        let (_, token) = try IngestKeyStore(connection: owner).create(for: app)
        let connection = try database.connect()
        try connection.execute("set role cardinal_ingest")
        #expect(try IngestKeyStore(connection: connection).resolve(token: token) == app.id)
        #expect(try InstallationSettings.load(from: connection).retentionDays > 0)
        for table in ["cardinal.apps", "cardinal.campaign_settings"] {
            let error = #expect(throws: PostgresError.self) { try connection.query("select count(*) from \(table)", []) }
            #expect(error?.sqlState == .insufficientPrivilege, "\(table)")
        }
    }

    @Test("The reader role reads events but cannot write or delete them")
    func readerRoleReadsButCannotWrite() throws {
        let database = try TestDatabase.migrated(prefix: "roles")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("set role cardinal_reader")
        #expect(try connection.query("select count(*) from cardinal.events")[0].decode(Int.self, at: 0) == 0)
        let insert = #expect(throws: PostgresError.self) {
            try connection.execute("insert into cardinal.apps (name) values ('x')")
        }
        #expect(insert?.sqlState == .insufficientPrivilege)
        let delete = #expect(throws: PostgresError.self) {
            try connection.execute("delete from cardinal.events")
        }
        #expect(delete?.sqlState == .insufficientPrivilege)
    }
}
