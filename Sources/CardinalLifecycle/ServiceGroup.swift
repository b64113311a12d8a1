public import CardinalLogging

/// Runs services together and stops them gracefully in the reverse order of their start, when asked (SIGTERM,
/// SIGINT) or when one of them fails, within a timeout; then says which failed. Modelled on
/// swift-service-lifecycle's `ServiceGroup`.
///
/// Reverse order lets each service rely on those started before it until it has stopped: the HTTP server,
/// last, drains its requests while the batch writers still write their batches.
public final class ServiceGroup: Sendable {
    /// What the group waits for while services run and stop.
    private enum Event: Sendable {
        case shutdownRequested
        case ended(index: Int, result: Result<Void, any Error>)
        case timeoutPassed
    }

    private let services: [any Service]
    private let shutdownTimeout: Duration
    private let logger: Logger
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation

    /// - Parameters:
    ///   - services: The services in the order they start; they stop in the reverse order.
    ///   - shutdownTimeout: How long a graceful shutdown may take in all; keep it under the service manager's
    ///     stop timeout (systemd's `TimeoutStopSec=`), after which it kills the process.
    ///   - logger: Where stops and failures are logged.
    public init(services: [any Service], shutdownTimeout: Duration, logger: Logger) {
        self.services = services
        self.shutdownTimeout = shutdownTimeout
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Asks the running group to stop its services; from any thread, such as one waiting for signals.
    public func triggerGracefulShutdown() {
        eventSink.yield(.shutdownRequested)
    }

    /// Starts every service (call it once), runs them until a shutdown is asked for or one of them ends, then stops the rest in
    /// reverse order.
    ///
    /// - Returns: The services that failed, threw, ended on their own or did not stop in time; empty when all
    ///   ran and stopped cleanly. Each is logged as well.
    public func run() async -> [ServiceFailure] {
        let tasks = services.enumerated().map { index, service in
            Task { [eventSink] in
                do {
                    try await service.run()
                    eventSink.yield(.ended(index: index, result: .success(())))
                } catch {
                    eventSink.yield(.ended(index: index, result: .failure(error)))
                }
            }
        }
        var results: [Int: Result<Void, any Error>] = [:]
        var iterator = events.makeAsyncIterator()
        var failures: [ServiceFailure] = []
        waiting: while let event = await iterator.next() {
            switch event {
            case .shutdownRequested:
                break waiting
            case let .ended(index, result):
                results[index] = result
                failures.append(failure(of: index, result))
                break waiting
            case .timeoutPassed:
                continue
            }
        }
        let timeout = Task { [eventSink, shutdownTimeout] in
            try? await Task.sleep(for: shutdownTimeout)
            eventSink.yield(.timeoutPassed)
        }
        defer { timeout.cancel() }
        for index in services.indices.reversed() where results[index] == nil {
            tasks[index].cancel()
            stopping: while results[index] == nil, let event = await iterator.next() {
                switch event {
                case .shutdownRequested:
                    continue
                case let .ended(ended, result):
                    results[ended] = result
                    if case .failure = result {
                        failures.append(failure(of: ended, result))
                    }
                case .timeoutPassed:
                    break stopping
                }
            }
            if results[index] == nil {
                for stillRunning in services.indices.reversed() where results[stillRunning] == nil {
                    tasks[stillRunning].cancel()
                    failures.append(ServiceFailure(service: services[stillRunning].name, reason: .didNotStop))
                    logger.log(.error, "service did not stop within the shutdown timeout", [
                        "service.name": services[stillRunning].name, "service.timeout": "\(shutdownTimeout)",
                    ])
                }
                return failures
            }
            logger.log(.debug, "service stopped", ["service.name": services[index].name])
        }
        return failures
    }

    /// The failure of the service at `index` that ended with `result`, logged.
    private func failure(of index: Int, _ result: Result<Void, any Error>) -> ServiceFailure {
        let name = services[index].name
        switch result {
        case .failure(let error):
            logger.log(.error, "service failed", ["service.name": name, "error": String(describing: error)])
            return ServiceFailure(service: name, reason: .threw(error))
        case .success:
            logger.log(.error, "service ended on its own; stopping the others", ["service.name": name])
            return ServiceFailure(service: name, reason: .endedEarly)
        }
    }
}
