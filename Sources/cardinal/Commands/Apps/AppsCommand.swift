import ArgumentKit

/// `cardinal apps …`: the apps that send events.
enum AppsCommand {
    static let tree = CommandTree.group(
        "apps", abstract: "Create and list apps; every event and ingest key belongs to one app.",
        subcommands: [.command(AppsCreateCommand.self), .command(AppsListCommand.self), .command(AppsLimitsCommand.self)]
    )
}
