import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal migrate`: brings the database schema up to date, or shows where it stands.
struct MigrateCommand: DatabaseCommand, ListingCommand {
    static let name = "migrate"
    static let abstract = "Apply pending schema migrations (SQL/migrations) to the database."
    static let discussion: String? = """
        Each migration runs in its own transaction under an advisory lock, so concurrent runs are safe; \
        applied files are recorded with a checksum and a file changed after it was applied is refused. On a \
        terminal, standard error shows the migration under way.
        """

    let databaseURL = CommonOptions.databaseURL
    let migrationsDirectory = Option(
        "migrations-dir",
        help: "Folder of NNNN_name.sql files (default: ../share/cardinal/migrations next to this executable's folder when installed, else SQL/migrations of the checkout it was built in).",
        valueName: "path", environment: "CARDINAL_MIGRATIONS_DIR")
    let format = CommonOptions.format
    let status = Flag("status", help: "List applied and pending migrations instead of applying them.")

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
        let migrator = Migrator(connection: try parsed.connect(), migrations: try directory.load())
        if parsed.status {
            let rows = try migrator.status().map { status -> [String?] in
                [status.migration.fileName, status.appliedAt == nil ? "pending" : "applied",
                 status.appliedAt.map { $0.formatted(.iso8601) }]
            }
            parsed.printListing(TextTable(header: ["migration", "state", "applied_at"], rows: rows))
            return
        }
        let progress = ProgressLine()
        defer { progress.clear() }
        let applied = try migrator.migrate { migration, position, count in
            progress.show("migrate: applying \(migration.fileName), \(position) of \(count)")
        }
        progress.clear()
        let message = applied.isEmpty
            ? "migrate: the database is up to date\n"
            : applied.map { "migrate: applied \($0.fileName)\n" }.joined()
        FileHandle.standardError.write(Data(message.utf8))
    }
}
