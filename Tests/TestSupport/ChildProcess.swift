public import Foundation
import Glibc
import Synchronization

/// A child process started by a test, with its standard output and standard error captured.
///
/// Started with `posix_spawn` rather than Foundation's `Process`, whose end is only noticed once every
/// process holding an inherited descriptor has exited: `pg_ctl start` leaves the server behind, and
/// `Process` would wait for that server to stop. Here the child inherits nothing but its three standard
/// streams, and a thread of its own waits for its exit with `waitpid`.
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

        /// "exit status N" or "signal N".
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
    private let exit = ExitRecord()

    /// Starts `executable` with `arguments`, standard input from /dev/null.
    /// - Throws: `TestEnvironment.SetupError` when it cannot be started.
    public init(executable: URL, arguments: [String], environment: [String: String] = [:]) throws {
        var childEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CARDINAL_") }
        childEnvironment.merge(environment) { _, new in new }
        name = executable.lastPathComponent
        let output = try Self.makePipe()
        let errors = try Self.makePipe()
        let spawned = Self.spawn(
            executable.path, arguments: [executable.path] + arguments,
            environment: childEnvironment.map { "\($0.key)=\($0.value)" }, output: output.write, errors: errors.write)
        close(output.write)
        close(errors.write)
        standardOutput = OutputCapture(descriptor: output.read, name: "\(name)-out")
        standardError = OutputCapture(descriptor: errors.read, name: "\(name)-err")
        let pid: Int32
        switch spawned {
        case let .success(spawnedPID):
            pid = spawnedPID
        case let .failure(error):
            throw TestEnvironment.SetupError(
                description: "cannot start \(executable.path): \(String(cString: strerror(error.code)))")
        }
        processIdentifier = pid
        let waiter = Thread { [exit] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            // The layout of wait(2) statuses: low 7 bits the terminating signal, 0 for a normal exit.
            let signal = status & 0x7F
            exit.record(signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal))
        }
        waiter.name = "wait-\(name)"
        waiter.start()
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

    /// Ends the child whatever state it is in: SIGTERM, then SIGKILL if it is still running after `grace`.
    public func stop(grace: Duration) {
        guard isRunning else {
            return
        }
        send(signal: SIGTERM)
        if waitForExit(timeout: grace) == nil {
            send(signal: SIGKILL)
            _ = waitForExit(timeout: .seconds(30))
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
        child.standardOutput.waitForEnd(timeout: .seconds(30))
        child.standardError.waitForEnd(timeout: .seconds(30))
        return CommandResult(
            termination: termination, standardOutput: child.standardOutput.text, standardError: child.standardError.text)
    }

    /// A pipe whose ends are closed on `exec`, so that children spawned meanwhile by other threads do not
    /// keep it open.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw TestEnvironment.SetupError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        return (descriptors[0], descriptors[1])
    }

    /// The open descriptors above the standard streams, which the child must not inherit. (Glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` would do this, but the Glibc module does not export it;
    /// glibc ignores a close action whose descriptor was closed meanwhile.)
    private static func inheritedDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { $0 > 2 }
    }

    /// `posix_spawn` with the child's standard streams set, every other descriptor closed, and signal
    /// mask and dispositions reset (the test runner's must not leak into the child).
    private static func spawn(
        _ path: String, arguments: [String], environment: [String], output: Int32, errors: Int32
    ) -> Result<Int32, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        for descriptor in inheritedDescriptors() {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        return result == 0 ? .success(pid) : .failure(SpawnError(code: result))
    }

    /// The `errno` of a failed `posix_spawn`.
    private struct SpawnError: Error {
        let code: Int32
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
