import Foundation
import TestSupport

/// Waiting for a state that a test cannot be told about: ask again every `interval` until it holds. The
/// deadline only keeps a broken daemon from hanging the suite; it is never what a test asserts on.
enum Poll {
    /// A condition that never came true.
    struct TimedOut: Error, CustomStringConvertible {
        let description: String
    }

    /// Calls `check` until it returns a value.
    /// - Throws: `TimedOut` naming `what` after `timeout`; errors from `check` are treated as "not yet".
    @discardableResult
    static func until<T>(
        _ what: String, timeout: Duration = .seconds(120), interval: Duration = .milliseconds(50),
        _ check: () throws -> T?
    ) throws -> T {
        let giveUp = ContinuousClock.now + timeout
        var lastError: (any Error)?
        while true {
            do {
                if let value = try check() {
                    return value
                }
            } catch {
                lastError = error
            }
            guard ContinuousClock.now < giveUp else {
                throw TimedOut(description: "gave up waiting for \(what) after \(timeout)"
                    + (lastError.map { "; last error: \($0)" } ?? ""))
            }
            Thread.sleep(forTimeInterval: interval.timeInterval)
        }
    }
}
