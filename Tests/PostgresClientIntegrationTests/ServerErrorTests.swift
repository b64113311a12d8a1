@_spi(PositionalParameters) import PostgresClient
import Testing

@Suite("Server errors")
struct ServerErrorTests {
    @Test("A unique violation surfaces as SQLSTATE 23505 with the server's detail and the constraint's name")
    func uniqueViolation() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table accounts (id int constraint accounts_pkey primary key)")
            try connection.execute("insert into accounts values ($1)", [1])
            let error = #expect(throws: PostgresError.self) { try connection.execute("insert into accounts values ($1)", [1]) }
            #expect(error?.code == .server)
            #expect(error?.sqlState == .uniqueViolation)
            #expect(error?.sqlState?.errorClass == "23")
            #expect(error?.detail == "Key (id)=(1) already exists.")
            #expect(error?.constraint == "accounts_pkey")
            #expect(error?.statement == "insert into accounts values ($1)")
            #expect(error?.isConnectionProblem == false)
            #expect(connection.isUsable)
        }
    }

    @Test("A failed CHECK keeps the row it quotes in detail, out of the description that goes to logs")
    func checkViolationDescriptionLeavesOutRow() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute(
                "create table visits (user_id text, note text constraint visits_note_short check (length(note) < 5))")
            let error = #expect(throws: PostgresError.self) {
                try connection.execute("insert into visits values ($1, $2)", ["user-4711", "too long a note"])
            }
            #expect(error?.sqlState == .checkViolation)
            #expect(error?.constraint == "visits_note_short")
            #expect(error?.detail?.contains("user-4711") == true, "the row stays available to code that needs it")
            let description = error.map { String(describing: $0) } ?? ""
            #expect(description.hasPrefix("23514: "))
            #expect(description.contains("visits_note_short"))
            #expect(!description.contains("user-4711"))
            #expect(!description.contains("DETAIL"))
        }
    }

    @Test("A syntax error surfaces as SQLSTATE 42601 with the failing statement")
    func syntaxError() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let error = #expect(throws: PostgresError.self) { try connection.query("selec 1") }
        #expect(error?.sqlState == .syntaxError)
        #expect(error?.message.contains("syntax error") == true)
        #expect(error?.statement == "selec 1")
        #expect(error.map { "\($0)".hasPrefix("42601: syntax error") } == true)
    }

    @Test("Calling a function that does not exist carries the server's hint")
    func undefinedFunctionHint() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let error = #expect(throws: PostgresError.self) { try connection.query("select no_such_function($1::int)", [1]) }
        #expect(error?.sqlState == .undefinedFunction)
        #expect(error?.hint?.contains("No function matches") == true)
    }

    @Test("RAISE EXCEPTION with detail and hint delivers all three")
    func raisedException() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let error = #expect(throws: PostgresError.self) {
            try connection.executeScript("""
                do $$ begin raise exception 'quota exceeded' using detail = 'app 7 sent 10001 events', hint = 'slow down'; end $$
                """)
        }
        #expect(error?.sqlState == .raiseException)
        #expect(error?.message == "quota exceeded")
        #expect(error?.detail == "app 7 sent 10001 events")
        #expect(error?.hint == "slow down")
    }

    @Test("A missing table surfaces as SQLSTATE 42P01 and the connection stays usable")
    func undefinedTable() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let error = #expect(throws: PostgresError.self) { try connection.query("select * from pgclient_no_such_table") }
        #expect(error?.sqlState == .undefinedTable)
        #expect(connection.isUsable)
        #expect(try connection.query("select 1").count == 1)
    }

    @Test("Only connection-level SQLSTATEs count as connection problems", arguments: [
        ("08006", true), ("08000", true), ("57P01", true), ("57P03", true), ("57014", false), ("23505", false),
    ])
    func connectionProblemClassification(code: String, isConnectionProblem: Bool) {
        let error = PostgresError(code: .server, message: "m", sqlState: SQLState(rawValue: code))
        #expect(error.isConnectionProblem == isConnectionProblem)
    }
}
