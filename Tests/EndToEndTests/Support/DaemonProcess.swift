import Foundation
import Glibc
import TestSupport

/// The real `cardinald` binary, started as a child process on a free port of 127.0.0.1.
///
/// The daemon is told `--listen 127.0.0.1:0` and logs the address it bound in its "cardinald listening"
/// line, which is where the port comes from. Unless `options` name a `--spool-dir`, each daemon gets a spool
/// folder of its own, deleted with it (the default, /var/lib/cardinald/spool, is locked by one daemon at a time).
final class DaemonProcess: Sendable {
    /// The port it listens on.
    let port: UInt16
    private let child: ChildProcess
    private let ownSpoolDirectory: URL?

    /// Starts the daemon on `databaseURL` with extra `options` and waits until it listens.
    /// - Throws: `TestEnvironment.SetupError` with the daemon's standard error when it does not come up.
    init(databaseURL: String, options: [String] = []) throws {
        var options = options
        if !options.contains("--spool-dir") {
            let folder = Self.temporarySpoolDirectory()
            options += ["--spool-dir", folder.path]
            ownSpoolDirectory = folder
        } else {
            ownSpoolDirectory = nil
        }
        let child = try ChildProcess(
            executable: try CardinalCLI.binary("cardinald"),
            arguments: ["--database-url", databaseURL, "--listen", "127.0.0.1:0", "--log-level", "info"] + options
        )
        guard let line = child.standardError.waitForLine(containing: "msg=\"cardinald listening\"", timeout: .seconds(120)),
              let port = Self.port(inLogLine: line)
        else {
            child.send(signal: SIGKILL)
            let ended = child.waitForExit(timeout: .seconds(30)).map(String.init(describing:)) ?? "still running"
            throw SetupFailure(
                description: "cardinald did not report its address (\(ended)); its standard error:\n\(child.standardError.text)")
        }
        self.child = child
        self.port = port
    }

    deinit {
        if let ownSpoolDirectory {
            try? FileManager.default.removeItem(at: ownSpoolDirectory)
        }
    }

    /// A new folder name under the temporary directory, for a spool (the daemon creates it).
    static func temporarySpoolDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cardinal-spool-\(UUID().uuidString.prefix(8).lowercased())")
    }

    /// The port in `... http.address=127.0.0.1:PORT ...`.
    static func port(inLogLine line: String) -> UInt16? {
        guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("http.address=") }),
              let colon = field.lastIndex(of: ":")
        else {
            return nil
        }
        return UInt16(field[field.index(after: colon)...])
    }

    /// Everything the daemon logged so far.
    var standardError: String { child.standardError.text }

    /// The daemon's process id.
    var processIdentifier: Int32 { child.processIdentifier }

    /// Whether the process is still alive.
    var isRunning: Bool { child.isRunning }

    /// Sends SIGTERM: the daemon should finish what is in flight and exit 0.
    func terminate() {
        child.send(signal: SIGTERM)
    }

    /// Sends `signal`.
    func send(signal: Int32) {
        child.send(signal: signal)
    }

    /// `kill -9`, and waits until the process is gone.
    func crash() throws {
        child.send(signal: SIGKILL)
        guard child.waitForExit(timeout: .seconds(60)) != nil else {
            throw SetupFailure(description: "cardinald survived SIGKILL for 60 s")
        }
    }

    /// Waits until the daemon ends and everything it wrote has been read; a generous bound only keeps a
    /// broken daemon from hanging the suite.
    ///
    /// The exit is noticed by `waitpid`, and the pipes are read by threads of their own: without waiting for
    /// their end, the last lines (the shutdown's summaries) may not have been read yet.
    /// - Throws: when it is still running after `timeout`.
    func waitForExit(timeout: Duration = .seconds(120)) throws -> ChildProcess.Termination {
        guard let termination = child.waitForExit(timeout: timeout) else {
            throw SetupFailure(
                description: "cardinald still runs after \(timeout); its standard error:\n\(standardError)")
        }
        child.standardOutput.waitForEnd(timeout: .seconds(30))
        child.standardError.waitForEnd(timeout: .seconds(30))
        return termination
    }

    /// Stops the daemon at the end of a test whatever state it is in: SIGTERM, then SIGKILL if it lingers.
    func stop() {
        child.stop(grace: .seconds(60))
    }
}
