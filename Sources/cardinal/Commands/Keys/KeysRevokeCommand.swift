import ArgumentKit
import CardinalStore

/// `cardinal keys revoke`.
struct KeysRevokeCommand: DatabaseCommand {
    static let name = "revoke"
    static let abstract = "Revoke a key; daemons stop accepting it within their key cache time (5s by default)."

    let keyID = Argument("key-id", help: "The id of the key (ck…), as listed.")
    let databaseURL = CommonOptions.databaseURL

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let key = try IngestKeyStore(connection: try parsed.connect()).revoke(keyID: parsed.keyID)
        Console.warn("keys: revoked \(key.id)")
    }
}
