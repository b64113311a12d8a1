import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal migrate`: brings the database schema up to date, or shows where it stands.
struct MigrateCommand: DatabaseCommand, ListingCommand {
    static let name = "migrate"
    static let abstract = "Apply pending schema migrations and changed SQL code to the database."
    static let discussion: String? = """
        Each versioned migration runs in its own transaction under an advisory lock, so concurrent runs are safe; \
        applied files are recorded with a checksum and a file changed after it was applied is refused. Then, when \
        any code file (functions, views, triggers) changed since it was last applied or a migration was just \
        applied, every code file is applied again in one transaction; a function, view or trigger that no code \
        file declares fails the run. On a terminal, standard error shows the step under way.
        """

    let databaseURL = CommonOptions.databaseURL
    let migrationsDirectory = Option(
        "migrations-dir",
        help: "Folder of NNNN_name.sql files (default: ../share/cardinal/migrations next to this executable's folder when installed, else SQL/migrations of the checkout it was built in).",
        valueName: "path", environment: "CARDINAL_MIGRATIONS_DIR")
    let codeDirectory = Option(
        "code-dir",
        help: "Folder of the code files, NNN_area.sql (default: code beside the migrations folder).",
        valueName: "path", environment: "CARDINAL_CODE_DIR")
    let format = CommonOptions.format
    let status = Flag("status", help: "List applied and pending migrations and code files instead of applying them.")

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let directory: MigrationDirectory
        if let path = parsed.migrationsDirectory {
            directory = MigrationDirectory(url: URL(fileURLWithPath: path))
        } else if let located = MigrationDirectory.locate(executablePath: MigrationDirectory.currentExecutablePath) {
            directory = located
        } else {
            throw parsed.usageError("""
                cannot find the migrations: neither \(MigrationDirectory.installedRelativePath) next to this \
                executable's folder (make install) nor SQL/migrations of a checkout above it; pass --migrations-dir
                """)
        }
        let code = try directory.loadCode(from: parsed.codeDirectory.map { URL(fileURLWithPath: $0) })
        let migrator = Migrator(connection: try parsed.connect(), migrations: try directory.load(), code: code)
        if parsed.status {
            try printStatus(of: migrator, code: code, parsed)
            return
        }
        let progress = ProgressLine()
        defer { progress.clear() }
        let outcome = try migrator.migrate(
            willApply: { migration, position, count in
                progress.show("migrate: applying \(migration.fileName), \(position) of \(count)")
            },
            willApplyCode: { count in
                progress.show("migrate: applying the \(count) code files")
            }
        )
        progress.clear()
        var message = outcome.migrations.map { "migrate: applied \($0.fileName)\n" }.joined()
        if !outcome.code.isEmpty {
            message += "migrate: applied the \(outcome.code.count) code files\n"
        }
        FileHandle.standardError.write(Data((outcome.isEmpty ? "migrate: the database is up to date\n" : message).utf8))
    }

    private static func printStatus(of migrator: Migrator, code: [CodeFile], _ parsed: ParsedCommand<Self>) throws {
        var rows = try migrator.status().map { status -> [String?] in
            [status.migration.fileName, status.appliedAt == nil ? "pending" : "applied",
             status.appliedAt.map { $0.formatted(.iso8601) }]
        }
        let codeStatus = try migrator.codeStatus()
        rows += code.map { file -> [String?] in
            ["code/" + file.fileName, codeStatus.changed ? "pending" : "applied",
             codeStatus.changed ? nil : codeStatus.applied.map { $0.formatted(.iso8601) }]
        }
        parsed.printListing(TextTable(header: ["file", "state", "applied_at"], rows: rows))
    }
}
