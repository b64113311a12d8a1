import PostgresClient
import Testing

@Suite("Row decoding")
struct RowDecodingTests {
    @Test("Rows expose column names, raw text and the affected row count")
    func rowShape() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let rows = try connection.query("select n, n * 2 as doubled, null::text as nothing from generate_series(1, 3) n")
        #expect(rows.columns == ["n", "doubled", "nothing"])
        #expect(rows.count == 3)
        #expect(rows.affectedRows == 3)
        #expect(rows[2][1] == "6")
        #expect(rows[2][2] == nil)
        #expect(try rows.map { try $0.decode(Int.self, column: "doubled") } == [2, 4, 6])
        #expect(try connection.execute("select 1 where false") == 0)
    }

    @Test("A value that does not parse names the column, its index and the Swift type")
    func unparsableValue() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let row = try #require(connection.query("select 1 as id, 'abc' as amount").first)
        let error = #expect(throws: PostgresError.self) { try row.decode(Int.self, column: "amount") }
        #expect(error?.code == .decoding)
        #expect(error?.message.contains("\"amount\"") == true)
        #expect(error?.message.contains("index 1") == true)
        #expect(error?.message.contains("Int") == true)
    }

    @Test("NULL decoded as a non-optional type names the column and suggests an optional")
    func nullIntoNonOptional() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let row = try #require(connection.query("select null::int as score").first)
        let error = #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 0) }
        #expect(error?.code == .decoding)
        #expect(error?.message.contains("\"score\"") == true)
        #expect(error?.message.contains("NULL") == true)
        #expect(try row.decode(Int?.self, at: 0) == nil)
    }

    @Test("Asking for a column that does not exist lists the columns there are")
    func unknownColumn() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let row = try #require(connection.query("select 1 as id, 2 as total").first)
        let error = #expect(throws: PostgresError.self) { try row.decode(Int.self, column: "totl") }
        #expect(error?.message.contains("totl") == true)
        #expect(error?.message.contains("id, total") == true)
        #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 2) }
    }

    @Test("An integer too large for the Swift type fails instead of wrapping")
    func integerOverflow() throws {
        let connection = try PostgresConnection(connectionString: TestServer.url())
        let row = try #require(connection.query("select 70000 as big").first)
        let error = #expect(throws: PostgresError.self) { try row.decode(Int16.self, at: 0) }
        #expect(error?.message.contains("Int16") == true)
        #expect(try row.decode(Int32.self, at: 0) == 70000)
    }
}
