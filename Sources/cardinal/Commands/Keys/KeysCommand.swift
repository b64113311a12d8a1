import ArgumentKit

/// `cardinal keys …`: the ingest keys apps authenticate with.
enum KeysCommand {
    static let tree = CommandTree.group(
        "keys", abstract: "Create, list and revoke ingest keys.",
        discussion: "Only a SHA-256 hash of a key is stored: a key is shown once, when it is created.",
        subcommands: [.command(KeysCreateCommand.self), .command(KeysListCommand.self), .command(KeysRevokeCommand.self)]
    )
}
