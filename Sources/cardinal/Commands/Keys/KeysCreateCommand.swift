import ArgumentKit
import CardinalStore

/// `cardinal keys create`.
struct KeysCreateCommand: DatabaseCommand {
    static let name = "create"
    static let abstract = "Create an ingest key and print it, alone, on standard output."

    let databaseURL = CommonOptions.databaseURL
    let app = RequiredOption("app", help: "The app the key belongs to.")
    let description = Option("description", help: "Where the key is used, for the listing.", valueName: "text")

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let connection = try parsed.connect()
        let app = try AppStore(connection: connection).find(name: parsed.app)
        let (key, token) = try IngestKeyStore(connection: connection).create(for: app, description: parsed.description)
        Console.print(token + "\n")
        Console.warn("keys: created \(key.id) for app \(app.name); it is shown only now")
    }
}
