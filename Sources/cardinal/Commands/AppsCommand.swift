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
        ]
    )

    static func create(_ context: CommandContext) throws {
        let name = context.arguments.argument("name") ?? ""
        let app = try AppStore(connection: try context.connect())
            .create(name: name, reportTimeZone: context.arguments.option("timezone") ?? "UTC")
        context.print("\(app.name)\n")
    }

    static func list(_ context: CommandContext) throws {
        let apps = try AppStore(connection: try context.connect()).list()
        context.printListing(TextTable(
            header: ["name", "report_time_zone", "created_at"],
            rows: apps.map { [$0.name, $0.reportTimeZone, $0.createdAt.formatted(.iso8601)] }
        ))
    }
}
