import Foundation
import PostgresClient
import Synchronization
import Testing

@Suite("Cancelling")
struct CancelTests {
    @Test("A canceller stops the statement its connection runs, from another thread, with query_canceled")
    func cancelRunningStatement() throws {
        let connection = try PostgresConnection(connectionString: try TestServer.url())
        let canceller = try #require(connection.makeCanceller())
        let started = ContinuousClock.now
        let sent = Mutex<(done: Bool, failure: String?)>((false, nil))
        // Half a second, so that the sleep has begun: a cancel between statements does nothing.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
            let failure = canceller.cancelRunningStatement()
            sent.withLock { $0 = (true, failure) }
        }
        let error = #expect(throws: PostgresError.self) { try connection.query("select pg_sleep(60)") }
        #expect(error?.sqlState == .queryCanceled)
        // The statement can fail before PQcancel has returned on the other thread.
        while !sent.withLock({ $0.done }) && ContinuousClock.now - started < .seconds(30) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(sent.withLock { $0.done && $0.failure == nil })
        #expect(ContinuousClock.now - started < .seconds(30), "long before the 60 s sleep ended")
        #expect(try connection.query("select 1").first?.decode(Int.self, at: 0) == 1, "the connection goes on")
    }

    @Test("A cancel sent while the connection runs nothing does nothing, and the canceller outlives its connection")
    func cancelWhileIdle() throws {
        var connection: PostgresConnection? = try PostgresConnection(connectionString: try TestServer.url())
        let canceller = try #require(connection?.makeCanceller())
        #expect(canceller.cancelRunningStatement() == nil)
        #expect(try connection?.query("select 2").first?.decode(Int.self, at: 0) == 2)
        connection = nil
        #expect(canceller.cancelRunningStatement() == nil, "the server takes the request; there is nothing to cancel")
    }
}
