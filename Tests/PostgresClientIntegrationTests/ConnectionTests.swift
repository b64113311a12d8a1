import Foundation
@_spi(PositionalParameters) import PostgresClient
import Synchronization
import Testing

@Suite("Connecting")
struct ConnectionTests {
    @Test("Connecting to a port where no server listens fails with connectionFailed and says the server is unreachable")
    func unreachableServer() {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(connectionString: "postgresql://postgres@127.0.0.1:1/postgres?connect_timeout=5")
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isConnectionProblem == true)
        #expect(error?.message.contains("server unreachable") == true)
        #expect(error?.message.contains("Connection refused") == true)
    }

    @Test("Connecting to a database that does not exist says the database does not exist")
    func missingDatabase() throws {
        let url = try TestServer.url(database: "pgclient_no_such_database")
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(connectionString: url) }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("database does not exist") == true)
        #expect(error?.message.contains("pgclient_no_such_database") == true)
    }

    @Test("A password in the connection string never appears in an error message", arguments: [
        "postgresql://postgres:Sup3rSecretPw@127.0.0.1:1/postgres",
        "postgresql://postgres:Sup3rSecretPw@[::1/postgres",
        "host=127.0.0.1 port=1 password=Sup3rSecretPw",
        "host=127.0.0.1 password='Sup3rSecretPw",
    ])
    func passwordIsNeverQuoted(connectionString: String) {
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(connectionString: connectionString) }
        #expect(error?.code == .connectionFailed)
        #expect(error.map { !"\($0)".contains("Sup3rSecretPw") } == true)
    }

    @Test("A malformed connection string is reported as invalid, with libpq's reason")
    func malformedConnectionString() {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(connectionString: "host=127.0.0.1 no_such_option=1")
        }
        #expect(error?.message.contains("invalid connection string") == true)
        #expect(error?.message.contains("no_such_option") == true)
    }

    @Test("A new connection is usable, speaks UTF8 whatever the connection string asks, and reports the server version")
    func freshConnection() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url(adding: ["client_encoding": "LATIN1"]))
        #expect(connection.isUsable)
        #expect(connection.serverVersion >= 150000)
        let encoding = try connection.query("show client_encoding").first?.decode(String.self, at: 0)
        #expect(encoding == "UTF8")
    }

    @Test("Notices the server sends reach the notice handler")
    func noticesReachHandler() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let notices = Mutex<[PostgresNotice]>([])
        connection.noticeHandler = { notice in notices.withLock { $0.append(notice) } }
        try connection.execute("do $$ begin raise notice 'hi'; end $$")
        let received = notices.withLock { $0 }
        #expect(received.map(\.message) == ["hi"])
        #expect(received.first?.severity == "NOTICE")
        #expect(received.first?.sqlState == SQLState(rawValue: "00000"))
    }

    @Test("A connection whose server process was terminated reports a connection problem and recovers after reset")
    func terminatedBackend() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let admin = try PostgresConnection(connectionString: TestServer.url())
        let pid = try #require(connection.query("select pg_backend_pid()").first).decode(Int.self, at: 0)
        try admin.execute("select pg_terminate_backend($1)", [pid])

        let error = #expect(throws: PostgresError.self) { try connection.query("select 1") }
        #expect(error?.isConnectionProblem == true)
        #expect(!connection.isUsable)

        connection.reset()
        #expect(connection.isUsable)
        #expect(try connection.query("select 41 + 1").first?.decode(Int.self, at: 0) == 42)
    }
}
