import CardinalLogging
import Foundation

/// SIGTERM and SIGINT, the signals that stop the daemon cleanly, taken with `sigwait` on a thread of their own.
///
/// Both are blocked before any other thread exists, so from the first line of `main` they stay pending until
/// ``wait(logger:)`` takes them: a signal sent as soon as the daemon reports that it listens can neither kill
/// it (default action) nor be lost (ignored before a handler is in place). The earlier dispatch-source
/// handler, a closure formed in main.swift, was also isolated to the main actor; Swift 6 checks that
/// isolation when the closure runs on a dispatch queue, and the daemon died of SIGILL at the first SIGTERM.
enum TerminationSignal {
    /// Blocks SIGTERM and SIGINT in the calling thread and in every thread it starts from now on. Call it
    /// first in `main`.
    static func block() {
        var signals = stopSignals
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits until SIGTERM or SIGINT arrives, and logs which one.
    static func wait(logger: Logger) {
        var signals = stopSignals
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        logger.log(.info, "signal received", ["signal": received == SIGTERM ? "TERM" : "INT"])
    }

    private static var stopSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }
}
