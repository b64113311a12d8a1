import Foundation
import Testing
import TestSupport

/// `make install` as an operator meets it: the installed tree, `cardinal migrate` without a checkout, and
/// units that systemd accepts. Each test installs the debug binaries under test with `scripts/install.sh`
/// (PREFIX=/usr, DESTDIR a temporary folder), which is all `make install` does after its release build.
@Suite struct InstallTests {
    @Test("install.sh puts binaries, migrations, code files, units and example configuration under DESTDIR + PREFIX")
    func installedLayout() throws {
        let installation = try Installation.make()
        defer { installation.remove() }
        let files = FileManager.default

        for binary in ["bin/cardinal", "bin/cardinald"] {
            #expect(files.isExecutableFile(atPath: installation.underPrefix(binary).path), "\(binary)")
        }
        let repositoryMigrations = try files.contentsOfDirectory(
            atPath: TestDatabase.migrationDirectory.url.path).filter { $0.hasSuffix(".sql") }.sorted()
        let installedMigrations = try files.contentsOfDirectory(
            atPath: installation.underPrefix("share/cardinal/migrations").path).sorted()
        #expect(installedMigrations == repositoryMigrations)
        let repositoryCode = try files.contentsOfDirectory(
            atPath: TestDatabase.migrationDirectory.codeURL.path).filter { $0.hasSuffix(".sql") }.sorted()
        let installedCode = try files.contentsOfDirectory(
            atPath: installation.underPrefix("share/cardinal/code").path).sorted()
        #expect(!installedCode.isEmpty)
        #expect(installedCode == repositoryCode)
        for example in ["cardinald.env.example", "cardinal.env.example"] {
            #expect(files.fileExists(atPath: installation.underPrefix("share/cardinal/\(example)").path), "\(example)")
        }
        for unit in Installation.units {
            let text = try String(contentsOf: installation.underPrefix("lib/systemd/system/\(unit)"), encoding: .utf8)
            #expect(text.firstMatch(of: /@[A-Z]+@/) == nil, "\(unit): every @VARIABLE@ is replaced")
        }
        let daemonUnit = try String(
            contentsOf: installation.underPrefix("lib/systemd/system/cardinald.service"), encoding: .utf8)
        #expect(daemonUnit.contains("\nExecStart=/usr/bin/cardinald\n"))
        #expect(daemonUnit.contains("\nEnvironmentFile=-/etc/cardinal/cardinald.env\n"))
        #expect(daemonUnit.contains("\nEnvironment=CARDINAL_SPOOL_DIR=%S/cardinald/spool\n"))
        let reportUnit = try String(
            contentsOf: installation.underPrefix("lib/systemd/system/cardinal-report.service"), encoding: .utf8)
        #expect(reportUnit.contains("\nExecStart=/usr/bin/cardinal report run --fail-on critical\n"))
        let retentionUnit = try String(
            contentsOf: installation.underPrefix("lib/systemd/system/cardinal-retention.service"), encoding: .utf8)
        #expect(retentionUnit.contains("\nExecStart=/usr/bin/cardinal retention apply\n"))
        #expect(retentionUnit.contains("\nEnvironmentFile=-/etc/cardinal/cardinal.env\n"))
    }

    @Test("The installed cardinal finds the installed migrations and code files without a checkout and applies them")
    func installedMigrate() throws {
        let installation = try Installation.make()
        defer { installation.remove() }
        let database = try TestDatabase(prefix: "e2e_install")
        defer { database.drop() }
        let cardinal = installation.underPrefix("bin/cardinal")
        let migrations = try FileManager.default.contentsOfDirectory(
            atPath: installation.underPrefix("share/cardinal/migrations").path).filter { $0.hasSuffix(".sql") }
        let codeFiles = try FileManager.default.contentsOfDirectory(
            atPath: installation.underPrefix("share/cardinal/code").path).filter { $0.hasSuffix(".sql") }

        // The copy lives outside the checkout, so only ../share/cardinal/migrations can satisfy it; the
        // child gets no CARDINAL_MIGRATIONS_DIR (ChildProcess drops the CARDINAL_* variables of the tests).
        let pending = try ChildProcess.run(cardinal, ["migrate", "--status", "--database-url", database.url])
        let applied = try ChildProcess.run(cardinal, ["migrate", "--database-url", database.url])
        let after = try ChildProcess.run(cardinal, ["migrate", "--status", "--database-url", database.url])

        #expect(pending.exitStatus == 0, "\(pending.standardError)")
        #expect(!migrations.isEmpty)
        for file in migrations + codeFiles.map({ "code/" + $0 }) {
            #expect(pending.standardOutput.contains(file), "\(file) listed")
        }
        #expect(applied.exitStatus == 0, "\(applied.standardError)")
        #expect(after.exitStatus == 0)
        // The state column, not the whole text: a migration's name may contain the word (0038's does).
        let states = after.standardOutput.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
        }
        #expect(!states.contains("pending"), "\(after.standardOutput)")
        #expect(states.filter { $0 == "applied" }.count == migrations.count + codeFiles.count, "\(after.standardOutput)")
        let versions = try database.connect().query("select count(*) from cardinal.schema_migrations")[0]
            .decode(Int.self, at: 0)
        #expect(versions == migrations.count)
    }

    /// `systemd-analyze verify` loads each unit as systemd would and checks that ExecStart= can be run; it
    /// exits 0 even on unknown keys or bad values, which it only prints, so standard error must be empty.
    ///
    /// It cannot check the units where they are staged: without `--root` it looks for `/usr/bin/cardinald`,
    /// which is not installed on this machine ("Command /usr/bin/cardinald is not executable"); with
    /// `--root=DESTDIR` it finds the binaries but also looks for the units every service depends on inside
    /// DESTDIR ("Unit sysinit.target not found", systemd 252). So it verifies copies of the installed units,
    /// in a folder of their own, whose ExecStart= names the staged binaries: everything else is byte for byte
    /// what was installed, and the host's sysinit.target and friends are found as usual.
    @Test("systemd-analyze verify accepts the installed units, without a warning")
    func systemdAcceptsUnits() throws {
        let installation = try Installation.make()
        defer { installation.remove() }
        let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        guard FileManager.default.isExecutableFile(atPath: analyze.path) else {
            throw SetupFailure(description: "\(analyze.path) is missing: install Debian's systemd package (make deps does)")
        }
        let verifyFolder = installation.destination.appendingPathComponent("verify")
        try FileManager.default.createDirectory(at: verifyFolder, withIntermediateDirectories: true)
        var paths: [String] = []
        for unit in Installation.units {
            let installed = try String(
                contentsOf: installation.underPrefix("lib/systemd/system/\(unit)"), encoding: .utf8)
            let staged = installed.replacingOccurrences(
                of: "\nExecStart=\(Installation.prefix)/", with: "\nExecStart=\(installation.staged(Installation.prefix).path)/")
            let copy = verifyFolder.appendingPathComponent(unit)
            try staged.write(to: copy, atomically: true, encoding: .utf8)
            paths.append(copy.path)
        }

        let result = try ChildProcess.run(analyze, ["verify", "--man=no"] + paths)

        #expect(result.exitStatus == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }

    @Test("The example configuration names every variable cardinald reads, with the default its help shows")
    func exampleNamesEveryVariable() throws {
        let installation = try Installation.make()
        defer { installation.remove() }
        let example = try String(
            contentsOf: installation.underPrefix("share/cardinal/cardinald.env.example"), encoding: .utf8)
        let help = try ChildProcess.run(installation.underPrefix("bin/cardinald"), ["--help"]).standardOutput
        // The help wraps lines; `(default: …) (env: …)` of one option may sit on two lines.
        let flat = help.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        let variables = flat.matches(of: /\(env: (CARDINAL_[A-Z_]+)\)/).map { String($0.output.1) }

        #expect(variables.contains("CARDINAL_DATABASE_URL") && variables.count > 10, "the help was read: \(variables)")
        for variable in variables {
            #expect(example.contains("\n#\(variable)=") || example.contains("\n\(variable)="), "\(variable)")
        }
        let defaults = flat.matches(of: /\(default: ([^)]+)\) \(env: (CARDINAL_[A-Z_]+)\)/)
        #expect(defaults.count > 10, "the defaults were read")
        for match in defaults {
            let (value, variable) = (String(match.output.1), String(match.output.2))
            #expect(example.contains("\n#\(variable)=\(value)\n"), "\(variable) shows the default \(value)")
        }
    }
}
