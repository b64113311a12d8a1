import ArgumentKit
import CardinalStore

/// `cardinal apps create`.
struct AppsCreateCommand: DatabaseCommand {
    static let name = "create"
    static let abstract = "Create an app."

    let appName = Argument("name", help: "A unique name for the app.")
    let databaseURL = CommonOptions.databaseURL
    let timezone = RequiredOption("timezone", help: "IANA time zone of the app's report day.", valueName: "zone",
                                  default: "UTC")

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let app = try AppStore(connection: try parsed.connect()).create(name: parsed.appName, reportTimeZone: parsed.timezone)
        Console.print("\(app.name)\n")
    }
}
