import Foundation
import TestSupport

/// An installation made by `scripts/install.sh` (what `make install` runs) into a throwaway DESTDIR, from the
/// binaries under test (CARDINAL_BIN_DIR): the test does not build a release.
struct Installation {
    /// The prefix the files are installed for, and that the units name.
    static let prefix = "/usr"

    /// The staging root; the files are under `destination + prefix`.
    let destination: URL

    /// Installs into a new temporary folder; `remove()` deletes it.
    /// - Throws: `SetupFailure` when the install script fails.
    static func make() throws -> Installation {
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardinal-install-\(UUID().uuidString.prefix(8))")
        let script = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/install.sh")
        let result = try ChildProcess.run(script, [], environment: [
            "BIN_DIR": try TestEnvironment.binaryDirectory().path,
            "PREFIX": prefix,
            "DESTDIR": destination.path,
        ])
        guard result.exitStatus == 0 else {
            try? FileManager.default.removeItem(at: destination)
            throw SetupFailure(description: "scripts/install.sh ended with \(result.termination): \(result.standardError)")
        }
        return Installation(destination: destination)
    }

    /// The staged location of `path`, an absolute path as installed (`/usr/bin/cardinal`).
    func staged(_ path: String) -> URL {
        destination.appendingPathComponent(String(path.drop { $0 == "/" }))
    }

    /// The staged `$(PREFIX)/relativePath`.
    func underPrefix(_ relativePath: String) -> URL {
        staged(Self.prefix + "/" + relativePath)
    }

    /// The systemd units as installed.
    static let units = [
        "cardinald.service", "cardinal-report.service", "cardinal-report.timer", "cardinal-retention.service",
        "cardinal-retention.timer",
    ]

    /// Deletes the staging root.
    func remove() {
        try? FileManager.default.removeItem(at: destination)
    }
}
