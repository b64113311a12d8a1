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
    /// The database stopped at a migration that the baseline squashed: the files that would bring it to the
    /// baseline are no longer shipped.
    case belowBaseline(appliedVersion: Int, baselineVersion: Int)
    /// A migration sorts before the baseline, which must come first.
    case migrationBeforeBaseline(fileName: String, baselineFileName: String)
    /// A code file failed to apply; nothing of the code files was applied.
    case codeFileFailed(fileName: String, reason: String)
    /// After the code files applied, the schema still holds functions, views or triggers that no code file
    /// declares (a drop that belongs in a versioned migration, or an object made by hand).
    case undeclaredObjects([String])

    /// The message for the operator.
    public var description: String {
        switch self {
        case let .unreadableDirectory(path, reason):
            "cannot read migrations at \(path): \(reason); pass --migrations-dir or set CARDINAL_MIGRATIONS_DIR"
        case let .badFileName(name):
            "SQL file \(name) is not named NNNN_name.sql (a number, an underscore, a name)"
        case let .duplicateVersion(version, files):
            "migration version \(version) appears twice: \(files.joined(separator: ", "))"
        case let .changedAfterApplied(fileName, applied, file):
            "migration \(fileName) was changed after it was applied (applied checksum \(applied.prefix(12)), "
                + "file checksum \(file.prefix(12))); landed migrations are append-only: restore the file and "
                + "put the change in a new migration"
        case let .missingFile(version, name):
            "the database has migration \(version) (\(name)) applied but no such file exists here; "
                + "this cardinal is older than the database schema: use a newer release"
        case let .belowBaseline(applied, baseline):
            "the database is at migration \(applied), below this release's baseline \(baseline), which squashed the "
                + "files in between: first run cardinal migrate of the release tagged sql-legacy-0083, then this "
                + "one (SQL/README.md, Upgrades)"
        case let .migrationBeforeBaseline(fileName, baselineFileName):
            "migration \(fileName) sorts before the baseline \(baselineFileName); new migrations take numbers after it"
        case let .codeFileFailed(fileName, reason):
            "code file \(fileName) failed, so none of the code files was applied: \(reason)"
        case let .undeclaredObjects(objects):
            "the schema holds objects that no file of SQL/code declares: \(objects.joined(separator: ", ")); "
                + "drop them in a versioned migration, or declare them in the code file of their area"
        }
    }
}
