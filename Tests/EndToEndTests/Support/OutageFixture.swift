import Foundation
import TestSupport

/// A database of its own on a throwaway cluster that a test may stop and start, migrated, with one app and its
/// key; and a spool folder that outlives the daemons started on it (a restart finds what the last one left).
final class OutageFixture {
    let cluster: TemporaryCluster
    let databaseURL: String
    let key: String
    let spoolDirectory: URL

    init() throws {
        cluster = try TemporaryCluster()
        do {
            databaseURL = try cluster.createDatabase("cardinal")
            try CardinalCLI.migrate(databaseURL: databaseURL)
            try CardinalCLI.createApp("spool-app", databaseURL: databaseURL)
            key = try CardinalCLI.createKey(app: "spool-app", databaseURL: databaseURL)
        } catch {
            cluster.destroy()
            throw error
        }
        spoolDirectory = DaemonProcess.temporarySpoolDirectory()
    }

    deinit {
        cluster.destroy()
        try? FileManager.default.removeItem(at: spoolDirectory)
    }

    /// Starts a daemon on this database and spool.
    func startDaemon(_ options: [String] = []) throws -> DaemonProcess {
        try DaemonProcess(databaseURL: databaseURL, options: ["--spool-dir", spoolDirectory.path] + options)
    }

    /// The events stored, read with SQL.
    func tables() throws -> EventTables {
        EventTables(connection: try .init(connectionString: databaseURL))
    }

    /// Segment files in the spool folder now.
    func segmentFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spoolDirectory.path)) ?? []).filter { $0.hasSuffix(".spool") }
    }

    /// Waits until the daemon's spool is empty (its metrics say so and no segment file is left).
    func waitUntilSpoolDrained(_ client: IngestClient, timeout: Duration = .seconds(120)) throws {
        try Poll.until("the spool to drain", timeout: timeout, interval: .milliseconds(100)) { () -> Bool? in
            let metrics = try MetricsText(client.get("/metrics").text)
            return metrics["cardinal_spool_records"] == 0 && segmentFiles().isEmpty ? true : nil
        }
    }
}
