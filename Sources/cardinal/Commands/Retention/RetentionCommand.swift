import ArgumentKit

/// `cardinal retention …`: applying `cardinal.settings.retention_days` to stored data (0007, 0018, 0022).
enum RetentionCommand {
    static let tree = CommandTree.group(
        "retention", abstract: "Drop events and rejected events older than the retention (settings.retention_days).",
        subcommands: [.command(RetentionApplyCommand.self)]
    )
}
