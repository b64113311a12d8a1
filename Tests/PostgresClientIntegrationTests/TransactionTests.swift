import PostgresClient
import Testing

@Suite("Transactions and scripts")
struct TransactionTests {
    private struct Abort: Error {}

    @Test("A transaction whose body throws leaves nothing behind and rethrows the error")
    func failedTransaction() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table items (id int primary key)")
            #expect(throws: Abort.self) {
                try connection.transaction { connection in
                    try connection.execute("insert into items values (1), (2)")
                    throw Abort()
                }
            }
            #expect(throws: PostgresError.self) {
                try connection.transaction { connection in
                    try connection.execute("insert into items values (3)")
                    try connection.execute("insert into items values (3)")
                }
            }
            #expect(try connection.query("select count(*) from items").first?.decode(Int.self, at: 0) == 0)
            #expect(connection.isUsable)
        }
    }

    @Test("A committed transaction keeps its rows and returns the body's value")
    func committedTransaction() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table items (id int primary key)")
            let inserted = try connection.transaction { connection in
                try connection.execute("insert into items select generate_series(1, 5)")
            }
            #expect(inserted == 5)
            #expect(try connection.query("select count(*) from items").first?.decode(Int.self, at: 0) == 5)
        }
    }

    @Test("A transaction whose failed statement was swallowed by the body is rolled back, not committed")
    func swallowedFailure() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.execute("create table items (id int primary key)")
            let error = #expect(throws: PostgresError.self) {
                try connection.transaction { connection in
                    try connection.execute("insert into items values (1)")
                    _ = try? connection.execute("insert into items values (1)")
                }
            }
            #expect(error?.sqlState == .inFailedSQLTransaction)
            #expect(try connection.query("select count(*) from items").first?.decode(Int.self, at: 0) == 0)
            #expect(connection.isUsable)
        }
    }

    @Test("A script runs several statements, and a failing statement undoes the ones before it")
    func scripts() throws {
        try TestSchema.with { schema in
            let connection = try schema.connect()
            try connection.executeScript("create table a (id int); create table b (id int); insert into a values (1);")
            #expect(try connection.query("select count(*) from a").first?.decode(Int.self, at: 0) == 1)
            let error = #expect(throws: PostgresError.self) {
                try connection.executeScript("insert into a values (2); insert into missing values (1);")
            }
            #expect(error?.sqlState == .undefinedTable)
            #expect(try connection.query("select count(*) from a").first?.decode(Int.self, at: 0) == 1)
        }
    }
}
