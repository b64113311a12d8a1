import Foundation
import Glibc

/// Finding the server programs, making a folder the server user can use, picking a port, running as owner.
extension TemporaryCluster {
    /// The folder with `initdb`, `pg_ctl` and `postgres`: `pg_config --bindir`, else the newest
    /// `/usr/lib/postgresql/*/bin` (Debian keeps the server programs off the PATH), as scripts/db.sh does.
    static func serverBinaries() throws -> URL {
        var candidates: [String] = []
        if let pgConfig = ["/usr/bin/pg_config", "/usr/local/bin/pg_config"].first(where: FileManager.default.isExecutableFile),
           let result = try? ChildProcess.run(URL(fileURLWithPath: pgConfig), ["--bindir"]), result.exitStatus == 0 {
            candidates.append(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            candidates.append("/usr/lib/postgresql/\(version)/bin")
        }
        let found = candidates.first { folder in
            ["initdb", "pg_ctl", "postgres"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: folder + "/" + $0)
            }
        }
        guard let found else {
            throw TestEnvironment.SetupError(description: """
                no PostgreSQL server programs (initdb, pg_ctl, postgres) found in pg_config --bindir or \
                /usr/lib/postgresql/*/bin; run 'make deps'
                """)
        }
        return URL(fileURLWithPath: found)
    }

    /// A new temporary folder; as root it belongs to `postgres`, and every folder above it lets that user
    /// pass (the search bit only, as scripts/db.sh does for the repository).
    static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardinal-cluster-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard getuid() == 0 else {
            return folder
        }
        guard let owner = getpwnam("postgres") else {
            throw TestEnvironment.SetupError(description: """
                running as root, but there is no 'postgres' user to run the server as; run 'make deps' \
                (the postgresql package creates it)
                """)
        }
        guard chown(folder.path, owner.pointee.pw_uid, owner.pointee.pw_gid) == 0 else {
            throw TestEnvironment.SetupError(description: "cannot give \(folder.path) to postgres: errno \(errno)")
        }
        var above = folder.deletingLastPathComponent()
        while above.path != "/" {
            var status = stat()
            if stat(above.path, &status) == 0, status.st_mode & S_IXOTH == 0 {
                chmod(above.path, status.st_mode | S_IXOTH)
            }
            above.deleteLastPathComponent()
        }
        return folder
    }

    /// A port of 127.0.0.1 that nothing listens on now: the kernel's pick for a socket bound to port 0.
    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw TestEnvironment.SetupError(description: "socket: errno \(errno)")
        }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            throw TestEnvironment.SetupError(description: "cannot find a free port: errno \(errno)")
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Runs a server program as the cluster's owner: this user, or `postgres` when root.
    /// - Parameter log: a server log whose end is added to the error when the program fails.
    static func runAsOwner(_ program: URL, _ arguments: [String], log: URL? = nil) throws {
        let result = getuid() == 0
            ? try ChildProcess.run(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", program.path] + arguments)
            : try ChildProcess.run(program, arguments)
        guard result.exitStatus == 0 else {
            let serverLog = log.flatMap { try? String(contentsOf: $0, encoding: .utf8) }.map { "\nserver log:\n" + $0.suffix(2000) } ?? ""
            throw TestEnvironment.SetupError(description: """
                \(program.lastPathComponent) \(arguments.joined(separator: " ")) failed (\(result.termination)): \
                \(result.standardError)\(result.standardOutput)\(serverLog)
                """)
        }
    }
}
