import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal keys list`.
struct KeysListCommand: DatabaseCommand, ListingCommand {
    static let name = "list"
    static let abstract = "List an app's keys (ids and state, never the keys themselves)."

    let databaseURL = CommonOptions.databaseURL
    let app = RequiredOption("app", help: "The app whose keys to list.")
    let format = CommonOptions.format

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let connection = try parsed.connect()
        let app = try AppStore(connection: connection).find(name: parsed.app)
        let keys = try IngestKeyStore(connection: connection).list(for: app)
        parsed.printListing(TextTable(
            header: ["key_id", "description", "created_at", "revoked_at"],
            rows: keys.map { [$0.id, $0.description, $0.createdAt.formatted(.iso8601), $0.revokedAt?.formatted(.iso8601)] }
        ))
    }
}
