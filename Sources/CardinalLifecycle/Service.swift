/// A long-running part of a process, run by a ``ServiceGroup``: the HTTP server, the batch writers, a
/// background loop. Modelled on swift-service-lifecycle's `Service`.
public protocol Service: Sendable {
    /// What the log calls it when it fails or does not stop: `http-server`, `batch-writers`.
    var name: String { get }

    /// Does the service's work until the task running it is cancelled, then stops gracefully and returns.
    ///
    /// Returning before the cancellation, or throwing, ends the whole group: a process without one of its
    /// services is not the process the operator started.
    func run() async throws
}
