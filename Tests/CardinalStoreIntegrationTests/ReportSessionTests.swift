import CardinalStore
import PostgresClient
import Testing
import TestSupport

@Suite struct ReportSessionTests {
    @Test("A report session turns JIT off and gives sorts 64 MB on the connection it is given")
    func sessionSettings() throws {
        let database = try TestDatabase.migrated(prefix: "session")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("set jit = on")
        try connection.execute("set work_mem = '4MB'")
        _ = try ReportSession(connection: connection)
        #expect(try connection.query("show jit")[0].decode(String.self, at: 0) == "off")
        #expect(try connection.query("show work_mem")[0].decode(String.self, at: 0) == "64MB")
    }

    @Test("A report session refuses an app that does not exist rather than giving an empty report")
    func unknownApp() throws {
        let database = try TestDatabase.migrated(prefix: "session")
        defer { database.drop() }
        let connection = try database.connect()
        _ = try AppStore(connection: connection).create(name: "shop", reportTimeZone: "UTC")
        let session = try ReportSession(connection: connection)
        #expect(try session.requireApp(named: "shop").name == "shop")
        #expect(throws: StoreError.self) { try session.requireApp(named: "nope") }
    }

    @Test("Sessions reading a shared snapshot see what was committed before it, not after, until it ends")
    func sharedSnapshot() throws {
        let database = try TestDatabase.migrated(prefix: "session")
        defer { database.drop() }
        let exporting = try ReportSession(connection: try database.connect())
        let importing = try ReportSession(connection: try database.connect())
        let apps = AppStore(connection: try database.connect())
        _ = try apps.create(name: "before", reportTimeZone: "UTC")
        let snapshot = try exporting.sharingSnapshot { snapshot in
            _ = try apps.create(name: "after", reportTimeZone: "UTC")
            try importing.reading(snapshot) { (session: ReportSession) throws in
                #expect(try session.requireApp(named: "before").name == "before")
                #expect(throws: StoreError.self) { try session.requireApp(named: "after") }
            }
            #expect(throws: StoreError.self) { try exporting.requireApp(named: "after") }
            return snapshot
        }
        #expect(try importing.requireApp(named: "after").name == "after")
        #expect(throws: PostgresError.self) { try importing.reading(snapshot) { _ in } }
    }
}
