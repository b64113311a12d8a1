import CardinalStore
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

@Suite struct IngestKeyStoreTests {
    @Test("A created key resolves to its app, is stored only as its SHA-256, and stops resolving once revoked")
    func keyLifecycle() throws {
        let database = try TestDatabase.migrated(prefix: "keys")
        defer { database.drop() }
        let connection = try database.connect()
        let app = try AppStore(connection: connection).create(name: "shop", reportTimeZone: "Europe/Madrid")
        let keys = IngestKeyStore(connection: connection)
        let (key, token) = try keys.create(for: app, description: "ios app")

        #expect(token.hasPrefix("cdl_\(key.id)_"))
        #expect(try keys.resolve(token: token) == app.id)
        #expect(try keys.resolve(token: token + "x") == nil)

        let stored = try connection.query(
            "select key_hash = sha256(convert_to($1, 'UTF8')), position(convert_to($1, 'UTF8') in key_hash) from cardinal.ingest_keys",
            [token]
        )
        #expect(try stored[0].decode(Bool.self, at: 0))
        #expect(try stored[0].decode(Int.self, at: 1) == 0)

        #expect(try keys.list(for: app).map(\.id) == [key.id])
        let revoked = try keys.revoke(keyID: key.id)
        #expect(revoked.revokedAt != nil)
        #expect(try keys.resolve(token: token) == nil)
        #expect(throws: StoreError.keyNotFound("ck_missing")) { try keys.revoke(keyID: "ck_missing") }
    }

    @Test("App names are unique and time zones must be known to PostgreSQL")
    func appRules() throws {
        let database = try TestDatabase.migrated(prefix: "apps")
        defer { database.drop() }
        let apps = AppStore(connection: try database.connect())
        _ = try apps.create(name: "shop")
        #expect(throws: StoreError.appExists("shop")) { try apps.create(name: "shop") }
        #expect(throws: StoreError.invalidTimeZone("Mars/Olympus")) { try apps.create(name: "x", reportTimeZone: "Mars/Olympus") }
        #expect(throws: StoreError.appNotFound("nope")) { try apps.find(name: "nope") }
        #expect(try apps.list().map(\.name) == ["shop"])
    }
}
