import CardinalStore
import Foundation
@_spi(PositionalParameters) import PostgresClient
import Testing
import TestSupport

/// The server's statement log must never show an ingest key: with `log_statement = all` every parameter is
/// logged (`DETAIL: parameters: $1 = '…'`), so the key must be hashed before it is sent.
@Suite struct IngestKeyLoggingTests {
    /// The private cluster's log (`scripts/db.sh` starts it with `pg_ctl -l .data/postgresql.log`).
    private static let serverLog = TestEnvironment.repositoryRoot.appendingPathComponent(".data/postgresql.log").path

    @Test("Creating and resolving a key under log_statement = all logs its hash, never the key")
    func keyNeverReachesServerLog() throws {
        let database = try TestDatabase.migrated(prefix: "keylog")
        defer { database.drop() }
        let connection = try database.connect()
        let app = try AppStore(connection: connection).create(name: "shop")
        let keys = IngestKeyStore(connection: connection)

        let logStart = try Self.logSize(connection)
        try connection.execute("set log_statement = 'all'")
        // A parameter we know, to prove that this session's parameters do reach the log we read.
        let marker = "marker-\(UUID().uuidString)"
        try connection.query("select $1::text", [marker])
        let (_, token) = try keys.create(for: app)
        #expect(try keys.resolve(token: token) == app.id)
        #expect(try keys.resolve(token: token + "x") == nil)
        try connection.execute("reset log_statement")

        let logged = try Self.logText(connection, from: logStart)
        try #require(logged.contains(marker), """
            the marker parameter is not in \(Self.serverLog): this test reads the log of the cluster \
            scripts/db.sh starts (make db); point CARDINAL_TEST_DATABASE_URL at it
            """)
        #expect(logged.contains("key_hash"))
        let secret = String(token.split(separator: "_").last ?? "")
        #expect(!logged.contains(token))
        #expect(!logged.contains(secret))
    }

    private static func logSize(_ connection: PostgresConnection) throws -> Int64 {
        try connection.query("select (pg_stat_file($1)).size", [serverLog])[0].decode(Int64.self, at: 0)
    }

    /// What the server wrote to its log since `offset`, read by the server (the file is the server user's).
    private static func logText(_ connection: PostgresConnection, from offset: Int64) throws -> String {
        // The server writes its log lines as it goes; give it a moment to finish the last one.
        try connection.query("select pg_sleep(0.2)")
        let size = try logSize(connection)
        let rows = try connection.query(
            "select convert_from(pg_read_binary_file($1, $2, $3), 'UTF8')", [serverLog, offset, size - offset])
        return try rows[0].decode(String.self, at: 0)
    }
}
