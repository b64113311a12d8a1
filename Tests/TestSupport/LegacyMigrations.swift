public import CardinalStore
import Foundation

/// The migrations 0001–0083 as the last release before the baseline shipped them. They left the checkout when
/// `SQL/migrations/0083_baseline.sql` squashed them, so they are read from the git history: the commit below is
/// the one tagged `sql-legacy-0083`, named by its id because a clone need not carry tags.
public enum LegacyMigrations {
    /// The last commit whose `SQL/migrations` held the files 0001–0083.
    public static let commit = "8d5520e02035f28dd57b0185f601a75c23958739"

    /// Extracts the files into a new temporary folder and loads them.
    /// - Throws: `TestEnvironment.SetupError` when git or the commit is missing (a shallow clone).
    public static func load() throws -> [Migration] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = TestEnvironment.repositoryRoot.path
        let extract = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "git -C \"$0\" archive --format=tar \"$1\" SQL/migrations | tar -x -C \"$2\"", root, commit, folder.path]
        )
        guard extract.exitStatus == 0 else {
            throw TestEnvironment.SetupError(description: """
                cannot read SQL/migrations of commit \(commit) from the git history of \(root) (a shallow clone? \
                run 'git fetch --unshallow'): \(extract.standardError)
                """)
        }
        return try MigrationDirectory(url: folder.appendingPathComponent("SQL/migrations")).load()
    }
}
