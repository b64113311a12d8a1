/// A service that did not run and stop as it should, as ``ServiceGroup/run()`` reports it.
public struct ServiceFailure: Error, Sendable, CustomStringConvertible {
    /// How the service failed.
    public enum Reason: Sendable {
        /// `run()` threw.
        case threw(any Error)
        /// `run()` returned before the group asked it to stop.
        case endedEarly
        /// The service was still running when the shutdown timeout passed.
        case didNotStop
    }

    /// The service's ``Service/name``.
    public var service: String
    /// How it failed.
    public var reason: Reason

    public var description: String {
        switch reason {
        case .threw(let error): "\(service) failed: \(error)"
        case .endedEarly: "\(service) ended on its own"
        case .didNotStop: "\(service) did not stop within the shutdown timeout"
        }
    }
}
