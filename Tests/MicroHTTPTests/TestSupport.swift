import Foundation
import MicroHTTP
import Synchronization

/// Runs blocking socket code on its own thread, keeping the small cooperative pool free for the test
/// runner and for other tests.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

/// A server on a free loopback port, with the test's configuration changes applied.
func makeServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    headHandler: HTTPHeadHandler? = nil,
    admissionHandler: HTTPAdmissionHandler? = nil,
    handler: @escaping HTTPHandler
) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configure(&configuration)
    return try HTTPServer(configuration: configuration, headHandler: headHandler,
                          admissionHandler: admissionHandler, handler: handler)
}

/// Hands the responders of deferred requests from server threads to the test, in arrival order.
final class DeferredRequests: Sendable {
    let stream: AsyncStream<(HTTPRequest, HTTPResponder)>
    private let continuation: AsyncStream<(HTTPRequest, HTTPResponder)>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    /// A handler that returns without answering and passes the request on to the test.
    var handler: HTTPHandler {
        { [continuation] request, responder in continuation.yield((request, responder)) }
    }
}

/// Counts handler calls from any thread.
final class CallCounter: Sendable {
    private let count = Atomic(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
