import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal keys …`: the ingest keys apps authenticate with.
enum KeysCommand {
    static let spec = CommandSpec(
        name: "keys",
        abstract: "Create, list and revoke ingest keys.",
        discussion: "Only a SHA-256 hash of a key is stored: a key is shown once, when it is created.",
        subcommands: [
            CommandSpec(
                name: "create",
                abstract: "Create an ingest key and print it, alone, on standard output.",
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("app", help: "The app the key belongs to.", isRequired: true),
                    OptionSpec("description", help: "Where the key is used, for the listing.", valueName: "text"),
                ]
            ),
            CommandSpec(
                name: "list",
                abstract: "List an app's keys (ids and state, never the keys themselves).",
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("app", help: "The app whose keys to list.", isRequired: true),
                    CommonOptions.format,
                ]
            ),
            CommandSpec(
                name: "revoke",
                abstract: "Revoke a key; daemons stop accepting it within their key cache time (5s by default).",
                arguments: [ArgumentSpec("key-id", help: "The id of the key (ck…), as listed.")],
                options: [CommonOptions.databaseURL]
            ),
        ]
    )

    static func create(_ context: CommandContext) throws {
        let connection = try context.connect()
        let app = try AppStore(connection: connection).find(name: context.arguments.option("app") ?? "")
        let (key, token) = try IngestKeyStore(connection: connection)
            .create(for: app, description: context.arguments.option("description"))
        context.print(token + "\n")
        FileHandle.standardError.write(Data("keys: created \(key.id) for app \(app.name); it is shown only now\n".utf8))
    }

    static func list(_ context: CommandContext) throws {
        let connection = try context.connect()
        let app = try AppStore(connection: connection).find(name: context.arguments.option("app") ?? "")
        let keys = try IngestKeyStore(connection: connection).list(for: app)
        context.printListing(TextTable(
            header: ["key_id", "description", "created_at", "revoked_at"],
            rows: keys.map { [$0.id, $0.description, $0.createdAt.formatted(.iso8601), $0.revokedAt?.formatted(.iso8601)] }
        ))
    }

    static func revoke(_ context: CommandContext) throws {
        let key = try IngestKeyStore(connection: try context.connect()).revoke(keyID: context.arguments.argument("key-id") ?? "")
        FileHandle.standardError.write(Data("keys: revoked \(key.id)\n".utf8))
    }
}
