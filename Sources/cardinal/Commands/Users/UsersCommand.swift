import ArgumentKit

/// `cardinal users …`: erasing what Cardinal keeps about a user or a device (SQL/code/140_erasure.sql).
enum UsersCommand {
    static let tree = CommandTree.group(
        "users", abstract: "Erase everything Cardinal keeps about users or devices of an app (right to erasure).",
        subcommands: [.command(UsersEraseCommand.self)]
    )
}
