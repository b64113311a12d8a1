import Foundation
@_spi(PositionalParameters) import PostgresClient
import Synchronization
import Testing

@Suite("Connection pool")
struct PoolTests {
    @Test("16 threads running 50 queries each over a pool of 4 get correct results and never use more than 4 server connections")
    func concurrentUse() throws {
        try TestSchema.with { schema in
            let pool = PostgresPool(connectionString: schema.connectionString, maxConnections: 4, acquireTimeout: .seconds(60))
            defer { pool.shutdown() }
            let wrongResults = Mutex(0)
            let failures = Mutex<[String]>([])
            let mostConnections = Mutex(0)
            runOnThreads(16) { thread in
                for query in 0..<50 {
                    let input = thread * 1000 + query
                    do {
                        let row = try pool.withConnection { connection in
                            try connection.query(
                                "select $1::int * 2, (select count(*) from pg_stat_activity where application_name = $2)",
                                [input, schema.name]
                            ).first
                        }
                        if try row?.decode(Int.self, at: 0) != input * 2 { wrongResults.withLock { $0 += 1 } }
                        let open = try row?.decode(Int.self, at: 1) ?? 0
                        mostConnections.withLock { $0 = max($0, open) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(wrongResults.withLock { $0 } == 0)
            #expect((1...4).contains(mostConnections.withLock { $0 }))
        }
    }

    @Test("Waiting longer than the acquire timeout for a connection fails with poolTimeout")
    func acquireTimeout() throws {
        let pool = PostgresPool(connectionString: try TestServer.url(), maxConnections: 1, acquireTimeout: .milliseconds(100))
        defer { pool.shutdown() }
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let holder = DispatchGroup()
        holder.enter()
        Thread {
            _ = try? pool.withConnection { _ in
                holding.signal()
                done.wait()
            }
            holder.leave()
        }.start()
        holding.wait()
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        done.signal()
        holder.wait()
        #expect(error?.code == .poolTimeout)
        #expect(try pool.withConnection { try $0.query("select 1").count } == 1)
    }

    @Test("A connection whose server process died is discarded and the next caller gets a fresh one")
    func brokenConnectionIsReplaced() throws {
        let pool = PostgresPool(connectionString: try TestServer.url(), maxConnections: 1)
        defer { pool.shutdown() }
        let admin = try PostgresConnection(connectionString: TestServer.url())
        let firstPID = try pool.withConnection { try $0.query("select pg_backend_pid()").first?.decode(Int.self, at: 0) }
        try admin.execute("select pg_terminate_backend($1)", [firstPID])

        let error = #expect(throws: PostgresError.self) { try pool.withConnection { try $0.query("select 1") } }
        #expect(error?.isConnectionProblem == true)
        let secondPID = try pool.withConnection { try $0.query("select pg_backend_pid()").first?.decode(Int.self, at: 0) }
        #expect(secondPID != nil)
        #expect(secondPID != firstPID)
    }

    @Test("A transaction the body left open is rolled back before the connection is lent again")
    func openTransactionIsRolledBack() throws {
        try TestSchema.with { schema in
            let pool = PostgresPool(connectionString: schema.connectionString, maxConnections: 1)
            defer { pool.shutdown() }
            _ = try pool.withConnection { try $0.execute("create table items (id int)") }
            try pool.withConnection { connection in
                try connection.execute("begin")
                try connection.execute("insert into items values (1)")
            }
            let (count, usable) = try pool.withConnection { connection in
                (try connection.query("select count(*) from items").first?.decode(Int.self, at: 0), connection.isUsable)
            }
            #expect(count == 0)
            #expect(usable)
        }
    }

    @Test("After shutdown the pool refuses new work")
    func shutdownRefusesWork() throws {
        let pool = PostgresPool(connectionString: try TestServer.url(), maxConnections: 2)
        #expect(try pool.withConnection { try $0.query("select 1").count } == 1)
        pool.shutdown()
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("shut down") == true)
    }

    @Test("A pool that cannot connect reports the connection failure to the caller")
    func unreachableServer() {
        let pool = PostgresPool(connectionString: "postgresql://postgres@127.0.0.1:1/postgres", maxConnections: 2)
        let error = #expect(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("server unreachable") == true)
    }
}
