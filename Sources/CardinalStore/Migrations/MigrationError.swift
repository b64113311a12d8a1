/// Why `cardinal migrate` refused to go on. Each message says what is wrong and how to fix it.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The migrations folder or a file in it cannot be read.
    case unreadableDirectory(path: String, reason: String)
    /// A `.sql` file is not named `NNNN_name.sql`.
    case badFileName(String)
    /// Two files carry the same version number.
    case duplicateVersion(version: Int, files: [String])
    /// An applied migration's file no longer has the checksum it was applied with.
    case changedAfterApplied(fileName: String, appliedChecksum: String, fileChecksum: String)
    /// The database has a migration applied that no file here provides.
    case missingFile(version: Int, name: String)

    /// The message for the operator.
    public var description: String {
        switch self {
        case let .unreadableDirectory(path, reason):
            "cannot read migrations at \(path): \(reason); pass --migrations-dir or set CARDINAL_MIGRATIONS_DIR"
        case let .badFileName(name):
            "migration file \(name) is not named NNNN_name.sql"
        case let .duplicateVersion(version, files):
            "migration version \(version) appears twice: \(files.joined(separator: ", "))"
        case let .changedAfterApplied(fileName, applied, file):
            "migration \(fileName) was changed after it was applied (applied checksum \(applied.prefix(12)), "
                + "file checksum \(file.prefix(12))); landed migrations are append-only: restore the file and "
                + "put the change in a new migration"
        case let .missingFile(version, name):
            "the database has migration \(version) (\(name)) applied but no such file exists here; "
                + "this cardinal is older than the database schema: use a newer release"
        }
    }
}
