public import Foundation

/// Reads the versioned migrations of `SQL/migrations/` and the code files of `SQL/code/` beside it from disk.
///
/// The SQL ships as files rather than inside the binary so that an operator can read exactly what
/// `cardinal migrate` will run, and so that a migration changed after it landed is caught by its checksum.
public struct MigrationDirectory: Sendable {
    /// The folder holding `NNNN_name.sql` files.
    public let url: URL

    /// Uses the given folder.
    public init(url: URL) {
        self.url = url
    }

    /// Where `make install` puts the migrations, relative to the folder of the installed executable:
    /// `$(PREFIX)/bin/cardinal` finds `$(PREFIX)/share/cardinal/migrations`.
    public static let installedRelativePath = "../share/cardinal/migrations"

    /// Finds the migrations folder when none was given (`--migrations-dir` and `CARDINAL_MIGRATIONS_DIR` win
    /// over this): `../share/cardinal/migrations` next to the executable's folder (an installed binary,
    /// whatever its prefix), then `SQL/migrations` in the checkout the executable was built in (walking up
    /// from the executable), then `/usr/local/share/cardinal/migrations` and `/usr/share/cardinal/migrations`.
    ///
    /// Symbolic links to the executable are resolved first, so a link in `/usr/local/bin` to an installed
    /// binary finds that binary's migrations.
    /// - Parameter executablePath: The executable's absolute path; see ``currentExecutablePath``.
    /// - Returns: `nil` when no candidate exists.
    public static func locate(executablePath: String) -> MigrationDirectory? {
        var candidates: [URL] = []
        let binFolder = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(binFolder.appendingPathComponent(installedRelativePath).standardizedFileURL)
        var folder = binFolder
        while folder.path != "/" {
            candidates.append(folder.appendingPathComponent("SQL/migrations"))
            folder.deleteLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: "/usr/local/share/cardinal/migrations"))
        candidates.append(URL(fileURLWithPath: "/usr/share/cardinal/migrations"))
        var isDirectory: ObjCBool = false
        let found = candidates.first {
            FileManager.default.fileExists(atPath: $0.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        return found.map(MigrationDirectory.init(url:))
    }

    /// The absolute path of the running executable.
    ///
    /// `CommandLine.arguments[0]` is only the name typed (`cardinal` when it was found on `PATH`), so this
    /// reads `/proc/self/exe` on Linux, and falls back to Foundation's idea of the executable, then to
    /// `arguments[0]`.
    public static var currentExecutablePath: String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return path
        }
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// The folder of code files that goes with these migrations: `code` beside the migrations folder, as in
    /// the checkout (`SQL/code`) and an installation (`share/cardinal/code`).
    public var codeURL: URL {
        url.deletingLastPathComponent().appendingPathComponent("code")
    }

    /// Loads every `NNN_name.sql` file of `folder` (``codeURL`` when `nil`), sorted by name.
    /// - Throws: `MigrationError.unreadableDirectory` or `.badFileName`.
    public func loadCode(from folder: URL? = nil) throws(MigrationError) -> [CodeFile] {
        let folder = folder ?? codeURL
        var files: [CodeFile] = []
        for fileName in try Self.sqlFileNames(in: folder) {
            guard fileName.prefix(while: \.isNumber).count > 0, fileName.contains("_") else {
                throw .badFileName(fileName)
            }
            files.append(CodeFile(fileName: fileName, sql: try Self.read(fileName, in: folder)))
        }
        return files
    }

    /// Loads every `NNNN_name.sql` file, sorted by version.
    /// - Throws: `MigrationError.unreadableDirectory`, `.badFileName` or `.duplicateVersion`.
    public func load() throws(MigrationError) -> [Migration] {
        var migrations: [Migration] = []
        for fileName in try Self.sqlFileNames(in: url) {
            let migration = try Self.parse(fileName: fileName, in: url)
            if let clash = migrations.first(where: { $0.version == migration.version }) {
                throw .duplicateVersion(version: migration.version, files: [clash.fileName, fileName])
            }
            migrations.append(migration)
        }
        return migrations.sorted { $0.version < $1.version }
    }

    private static func sqlFileNames(in folder: URL) throws(MigrationError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        } catch {
            throw .unreadableDirectory(path: folder.path, reason: error.localizedDescription)
        }
    }

    private static func read(_ fileName: String, in folder: URL) throws(MigrationError) -> String {
        let path = folder.appendingPathComponent(fileName).path
        guard let data = FileManager.default.contents(atPath: path), let sql = String(data: data, encoding: .utf8) else {
            throw .unreadableDirectory(path: path, reason: "cannot read the file as UTF-8")
        }
        return sql
    }

    private static func parse(fileName: String, in folder: URL) throws(MigrationError) -> Migration {
        let stem = fileName.dropLast(".sql".count)
        guard let underscore = stem.firstIndex(of: "_"),
              let version = Int(stem[..<underscore]), version > 0,
              stem.index(after: underscore) < stem.endIndex
        else {
            throw .badFileName(fileName)
        }
        return Migration(version: version, name: String(stem[stem.index(after: underscore)...]),
                         sql: try read(fileName, in: folder))
    }
}
