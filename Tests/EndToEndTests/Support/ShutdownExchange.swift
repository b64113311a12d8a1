import Foundation
import Synchronization

/// What became of one request sent around a shutdown.
struct ShutdownExchange: Sendable {
    /// Whether the whole request had been sent before the test signalled the daemon.
    let sentBeforeSignal: Bool
    /// The status, or `nil` when the connection failed.
    let status: Int?
    let retryAfter: String?
    let accepted: Int
    let events: [UUID]

    /// Sends one request and notes what became of it.
    @discardableResult
    static func send(
        _ events: [TestEvent], with client: IngestClient, signalled: borrowing Atomic<Bool>,
        into exchanges: Locked<[ShutdownExchange]>
    ) -> ShutdownExchange {
        var sentBeforeSignal = false
        var reply: HTTPReply?
        do {
            reply = try client.post(body: TestEvent.jsonBatch(events)) {
                sentBeforeSignal = !signalled.load(ordering: .sequentiallyConsistent)
            }
        } catch {
            reply = nil
        }
        let accepted = reply.flatMap { $0.status == 200 ? try? IngestResult($0).accepted : nil } ?? 0
        let exchange = ShutdownExchange(
            sentBeforeSignal: sentBeforeSignal, status: reply?.status, retryAfter: reply?.header("Retry-After"),
            accepted: accepted, events: events.map(\.id))
        exchanges.withLock { $0.append(exchange) }
        return exchange
    }
}
