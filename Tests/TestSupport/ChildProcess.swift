public import Foundation
import Glibc
import Synchronization

/// A child process started by a test, with its standard output and standard error captured.
///
/// The child gets the test's environment without the `CARDINAL_*` variables, so that a developer's settings
/// never change what a test runs; pass `environment` to add some back.
public final class ChildProcess: Sendable {
    /// How a child process ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        public var description: String {
            switch self {
            case let .exited(status): "exit status \(status)"
            case let .signalled(signal): "signal \(signal)"
            }
        }
    }

    /// The executable's file name, for messages.
    public let name: String
    /// What the child writes to standard output.
    public let standardOutput: OutputCapture
    /// What the child writes to standard error.
    public let standardError: OutputCapture
    /// The process id.
    public let processIdentifier: Int32
    private let process: UncheckedProcess
    private let exit = ExitRecord()

    /// Starts `executable` with `arguments`.
    /// - Throws: when the executable cannot be started.
    public init(executable: URL, arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var childEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CARDINAL_") }
        childEnvironment.merge(environment) { _, new in new }
        process.environment = childEnvironment
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        name = executable.lastPathComponent
        standardOutput = OutputCapture(pipe: outputPipe, name: "\(name)-out")
        standardError = OutputCapture(pipe: errorPipe, name: "\(name)-err")
        self.process = UncheckedProcess(process: process)
        process.terminationHandler = { [exit] finished in
            exit.record(finished.terminationReason == .uncaughtSignal
                ? .signalled(finished.terminationStatus) : .exited(finished.terminationStatus))
        }
        try process.run()
        processIdentifier = process.processIdentifier
        // Only the child keeps the write ends open, so the captures see end of file when it (and anything
        // it started that inherited them) is gone.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
    }

    deinit {
        // A test that failed half-way must not leave a daemon running behind it.
        if isRunning {
            kill(processIdentifier, SIGKILL)
        }
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { exit.termination == nil }

    /// Sends `signal` to the child; nothing happens once it has ended.
    public func send(signal: Int32) {
        if isRunning {
            kill(processIdentifier, signal)
        }
    }

    /// Waits until the child ends.
    /// - Returns: how it ended, or `nil` when `timeout` passed first.
    public func waitForExit(timeout: Duration) -> Termination? {
        exit.wait(timeout: timeout)
    }

    /// Runs `executable` to the end and returns its status and output.
    /// - Throws: `TestEnvironment.SetupError` when it does not end within `timeout` (it is then killed).
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(300)
    ) throws -> CommandResult {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
        guard let termination = child.waitForExit(timeout: timeout) else {
            child.send(signal: SIGKILL)
            _ = child.waitForExit(timeout: .seconds(30))
            throw TestEnvironment.SetupError(
                description: "\(child.name) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        // A program that leaves a background process behind (pg_ctl) may not close the pipes at once; what it
        // wrote itself is there when it has ended, so do not wait long.
        child.standardOutput.waitForEnd(timeout: .seconds(5))
        child.standardError.waitForEnd(timeout: .seconds(5))
        return CommandResult(
            termination: termination, standardOutput: child.standardOutput.text, standardError: child.standardError.text)
    }
}

/// What a finished command did.
public struct CommandResult: Sendable {
    /// How it ended.
    public let termination: ChildProcess.Termination
    /// Everything it wrote to standard output.
    public let standardOutput: String
    /// Everything it wrote to standard error.
    public let standardError: String

    /// Its exit status, or `nil` when a signal ended it.
    public var exitStatus: Int32? {
        if case let .exited(status) = termination {
            return status
        }
        return nil
    }
}

/// How a child ended, once it has, for any number of waiting threads.
private final class ExitRecord: Sendable {
    private let state = Mutex<ChildProcess.Termination?>(nil)
    private let ended = DispatchSemaphore(value: 0)

    var termination: ChildProcess.Termination? { state.withLock { $0 } }

    func record(_ termination: ChildProcess.Termination) {
        state.withLock { $0 = termination }
        ended.signal()
    }

    func wait(timeout: Duration) -> ChildProcess.Termination? {
        if let termination {
            return termination
        }
        guard ended.wait(timeout: .now() + timeout.timeInterval) == .success else {
            return termination
        }
        // Pass the wake-up on to the next waiter.
        ended.signal()
        return termination
    }
}

/// A `Process` handed between threads.
private struct UncheckedProcess {
    let process: Process
}

// The process object is configured before `run()` and afterwards only kept alive here; it is never mutated
// from another thread (signals go to its pid, the end is reported through `terminationHandler`).
extension UncheckedProcess: @unchecked Sendable {}
