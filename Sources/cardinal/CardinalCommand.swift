import ArgumentKit
import CardinalCore

/// The `cardinal` command tree: every group and the command types that run, from which both the parser and
/// the dispatch come.
enum CardinalCommand {
    static let tree = CommandTree.group(
        "cardinal",
        abstract: "Cardinal's command line: schema migrations, apps and ingest keys, reports and their state, erasure and retention.",
        discussion: "Every command reads the database from --database-url or CARDINAL_DATABASE_URL.",
        version: CardinalVersion.current,
        subcommands: [
            .command(MigrateCommand.self), AppsCommand.tree, KeysCommand.tree, CampaignsCommand.tree,
            ReportCommand.tree, StateCommand.tree, UsersCommand.tree, RetentionCommand.tree,
        ]
    )
}
