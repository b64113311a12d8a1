public import Foundation
import Glibc
import PostgresClient
import Synchronization

/// A throwaway PostgreSQL cluster in a temporary folder, on a free port of 127.0.0.1, for tests that must stop
/// and start the database server. The shared test cluster (CARDINAL_TEST_DATABASE_URL) serves other tests at
/// the same time, so it must never be stopped; this one belongs to one test.
///
/// initdb refuses to run as root, so as root the server runs as the `postgres` user (as scripts/db.sh does)
/// and the folder belongs to that user. `deinit` stops the server and deletes the folder; `destroy()` does
/// it earlier.
public final class TemporaryCluster: Sendable {
    /// The port the server listens on (fixed for the cluster's life, so a restart keeps its address).
    public let port: UInt16
    /// The temporary folder holding the data directory and the server log.
    public let folder: URL
    private let binaries: URL
    private let isRunning = Mutex(false)
    private let isDestroyed = Mutex(false)

    private var dataDirectory: URL { folder.appendingPathComponent("data") }
    private var logFile: URL { folder.appendingPathComponent("postgresql.log") }

    /// Initialises a cluster and starts it.
    /// - Throws: `TestEnvironment.SetupError` saying what is missing or what failed, with the tool's output.
    public init() throws {
        binaries = try Self.serverBinaries()
        folder = try Self.makeFolder()
        port = try Self.freePort()
        do {
            try Self.runAsOwner(binaries.appendingPathComponent("initdb"), [
                "-D", folder.appendingPathComponent("data").path, "-U", "postgres", "--auth=trust",
                "--encoding=UTF8", "--no-locale", "--no-sync",
            ])
            try Self.configure(dataDirectory: folder.appendingPathComponent("data"), port: port)
            try start()
        } catch {
            removeFolder()
            throw error
        }
    }

    deinit {
        destroy()
    }

    /// The superuser URL of `database` on this cluster.
    public func url(database: String = "postgres") -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Creates an empty database and returns its superuser URL.
    public func createDatabase(_ name: String) throws -> String {
        let admin = try PostgresConnection(connectionString: url())
        try admin.executeScript("create database \(name)")
        return url(database: name)
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        try Self.runAsOwner(binaries.appendingPathComponent("pg_ctl"), [
            "-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "120", "start",
        ], log: logFile)
        isRunning.withLock { $0 = true }
    }

    /// Stops the server ("fast": open sessions are ended, as when an operator stops it) and waits until it
    /// is down.
    public func stop() throws {
        try Self.runAsOwner(binaries.appendingPathComponent("pg_ctl"), [
            "-D", dataDirectory.path, "-m", "fast", "-w", "-t", "120", "stop",
        ], log: logFile)
        isRunning.withLock { $0 = false }
    }

    /// Stops the server if it runs and deletes the folder. Idempotent.
    public func destroy() {
        let first = isDestroyed.withLock { destroyed in
            defer { destroyed = true }
            return !destroyed
        }
        guard first else {
            return
        }
        if isRunning.withLock({ $0 }) {
            _ = try? Self.runAsOwner(binaries.appendingPathComponent("pg_ctl"), [
                "-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "60", "stop",
            ])
        }
        removeFolder()
    }

    private func removeFolder() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Settings of a small, private server. `fsync` is off because this cluster's durability is not what the
    /// tests check and the machine is shared; `synchronous_commit` stays on as cardinald expects.
    private static func configure(dataDirectory: URL, port: UInt16) throws {
        let settings = """

            # Throwaway cluster of a Cardinal test (Tests/TestSupport/TemporaryCluster.swift).
            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = ''
            max_connections = 50
            shared_buffers = 16MB
            fsync = off
            synchronous_commit = on
            timezone = 'UTC'
            log_min_messages = warning

            """
        let file = try FileHandle(forWritingTo: dataDirectory.appendingPathComponent("postgresql.conf"))
        defer { try? file.close() }
        try file.seekToEnd()
        try file.write(contentsOf: Data(settings.utf8))
    }
}
