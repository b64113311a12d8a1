import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal apps list`.
struct AppsListCommand: DatabaseCommand, ListingCommand {
    static let name = "list"
    static let abstract = "List apps."

    let databaseURL = CommonOptions.databaseURL
    let format = CommonOptions.format

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let apps = try AppStore(connection: try parsed.connect()).list()
        parsed.printListing(TextTable(
            header: ["name", "report_time_zone", "created_at"],
            rows: apps.map { [$0.name, $0.reportTimeZone, $0.createdAt.formatted(.iso8601)] }
        ))
    }
}
