import CardinalStore
import Foundation
import Testing

/// How `cardinal migrate` finds its SQL when no `--migrations-dir` is given; files only, no database.
@Suite struct MigrationDirectoryTests {
    /// A throwaway folder, removed by `defer` in each test.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardinal-locate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Creates `path` below `root` as a folder, or as an empty file when `file` is true.
    static func make(_ path: String, in root: URL, file: Bool = false) throws -> URL {
        let url = root.appendingPathComponent(path)
        if file {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        } else {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        return url
    }

    @Test("An installed binary finds ../share/cardinal/migrations next to its bin folder")
    func installedLayout() throws {
        let root = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = try Self.make("opt/cardinal/bin/cardinal", in: root, file: true)
        let migrations = try Self.make("opt/cardinal/share/cardinal/migrations", in: root)

        let found = MigrationDirectory.locate(executablePath: binary.path)

        #expect(found?.url.standardizedFileURL.path == migrations.standardizedFileURL.path)
    }

    @Test("A symbolic link to an installed binary finds the binary's migrations, not the link's")
    func symbolicLink() throws {
        let root = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = try Self.make("opt/cardinal/bin/cardinal", in: root, file: true)
        let migrations = try Self.make("opt/cardinal/share/cardinal/migrations", in: root)
        let link = try Self.make("usr/bin", in: root).appendingPathComponent("cardinal")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: binary)

        let found = MigrationDirectory.locate(executablePath: link.path)

        #expect(found?.url.resolvingSymlinksInPath().path == migrations.resolvingSymlinksInPath().path)
    }

    @Test("A binary built in a checkout finds the checkout's SQL/migrations")
    func checkoutLayout() throws {
        let root = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = try Self.make("checkout/.build/x86_64-unknown-linux-gnu/debug/cardinal", in: root, file: true)
        let migrations = try Self.make("checkout/SQL/migrations", in: root)

        let found = MigrationDirectory.locate(executablePath: binary.path)

        #expect(found?.url.path == migrations.path)
    }

    @Test("The running executable's path is absolute, whatever the command line said")
    func currentExecutable() {
        #expect(MigrationDirectory.currentExecutablePath.hasPrefix("/"))
    }

    @Test("Code files are read in the order of their names and badly named files are refused")
    func codeFilesReadInOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)")
        let code = root.appendingPathComponent("code")
        try FileManager.default.createDirectory(at: code, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try "select 2;".write(to: code.appendingPathComponent("020_later.sql"), atomically: true, encoding: .utf8)
        try "select 1;".write(to: code.appendingPathComponent("010_first.sql"), atomically: true, encoding: .utf8)
        let directory = MigrationDirectory(url: root.appendingPathComponent("migrations"))

        #expect(try directory.loadCode().map(\.fileName) == ["010_first.sql", "020_later.sql"])
        try "select 3;".write(to: code.appendingPathComponent("helpers.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.badFileName("helpers.sql")) { try directory.loadCode() }
    }
}
