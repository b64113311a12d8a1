import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal apps …`: the apps that send events.
enum AppsCommand {
    static let spec = CommandSpec(
        name: "apps",
        abstract: "Create and list apps; every event and ingest key belongs to one app.",
        subcommands: [
            CommandSpec(
                name: "create",
                abstract: "Create an app.",
                arguments: [ArgumentSpec("name", help: "A unique name for the app.")],
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("timezone", help: "IANA time zone of the app's report day.", valueName: "zone",
                               default: "UTC"),
                ]
            ),
            CommandSpec(
                name: "list",
                abstract: "List apps.",
                options: [CommonOptions.databaseURL, CommonOptions.format]
            ),
            CommandSpec(
                name: "limits",
                abstract: "Show or set how fast an app may send events (cardinald answers 429 beyond).",
                discussion: """
                    Each cardinald keeps a token bucket per app for events and one for requests; a request beyond \
                    either is answered 429 with Retry-After and nothing of it is stored. Without a setting here an \
                    app gets the daemon's --rate-limit-events and --rate-limit-requests. A rate of 0 lifts the \
                    limit; 'default' goes back to the daemon's. Daemons pick a change up within --key-cache-ttl. \
                    Prints the limits in force after the change.
                    """,
                arguments: [ArgumentSpec("name", help: "The app.")],
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("events-per-second", help: "Events per second, sustained, or 'default'.",
                               valueName: "n"),
                    OptionSpec("requests-per-second", help: "Requests per second, sustained, or 'default'.",
                               valueName: "n"),
                ]
            ),
        ]
    )

    static func create(_ context: CommandContext) throws {
        let name = context.arguments.argument("name") ?? ""
        let app = try AppStore(connection: try context.connect())
            .create(name: name, reportTimeZone: context.arguments.option("timezone") ?? "UTC")
        context.print("\(app.name)\n")
    }

    static func limits(_ context: CommandContext) throws {
        let store = AppStore(connection: try context.connect())
        let app = try store.find(name: context.arguments.argument("name") ?? "")
        var limits = try store.rateLimits(of: app)
        if let events = try rate("events-per-second", context) {
            limits.eventsPerSecond = events
        }
        if let requests = try rate("requests-per-second", context) {
            limits.requestsPerSecond = requests
        }
        if context.arguments.option("events-per-second") != nil || context.arguments.option("requests-per-second") != nil {
            try store.setRateLimits(limits, of: app)
        }
        let shown = { (rate: Int?) in rate.map { $0 == 0 ? "unlimited" : String($0) } ?? "default" }
        context.print("events_per_second=\(shown(limits.eventsPerSecond)) requests_per_second=\(shown(limits.requestsPerSecond))\n")
    }

    /// The value of a rate option: absent (`nil`), `default` (`.some(nil)`) or a count of 0 or more.
    private static func rate(_ name: String, _ context: CommandContext) throws -> Int?? {
        guard let text = context.arguments.option(name) else {
            return nil
        }
        if text == "default" {
            return .some(nil)
        }
        guard let value = Int(text), value >= 0, value <= Int(Int32.max) else {
            throw context.arguments.usageError("--\(name) must be a count of 0 or more, or 'default'; got '\(text)'")
        }
        return value
    }

    static func list(_ context: CommandContext) throws {
        let apps = try AppStore(connection: try context.connect()).list()
        context.printListing(TextTable(
            header: ["name", "report_time_zone", "created_at"],
            rows: apps.map { [$0.name, $0.reportTimeZone, $0.createdAt.formatted(.iso8601)] }
        ))
    }
}
