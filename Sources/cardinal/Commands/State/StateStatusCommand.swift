import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal state status`.
struct StateStatusCommand: DatabaseCommand, ListingCommand {
    static let name = "status"
    static let abstract = "Show how many stored events wait for the fold and how old the oldest is."

    let databaseURL = CommonOptions.databaseURL
    let format = CommonOptions.format

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let backlog = try ReportStateStore(connection: try parsed.connect()).backlog()
        parsed.printListing(TextTable(
            header: ["unfolded_events", "oldest_age_seconds"],
            rows: [[String(backlog.events), backlog.oldestAgeSeconds.map { String(format: "%.1f", $0) }]]
        ))
    }
}
