import ArgumentKit

/// `cardinal retention …`: applying `cardinal.settings.retention_days` to stored data (`SQL/code/020_ingest_and_retention.sql`).
enum RetentionCommand {
    static let tree = CommandTree.group(
        "retention", abstract: "Drop events and rejected events older than the retention (settings.retention_days).",
        subcommands: [.command(RetentionApplyCommand.self)]
    )
}
