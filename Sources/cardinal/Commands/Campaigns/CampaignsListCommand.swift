import ArgumentKit
import CardinalStore

/// `cardinal campaigns list`.
struct CampaignsListCommand: DatabaseCommand, ListingCommand {
    static let name = "list"
    static let abstract = "List campaign settings."

    let databaseURL = CommonOptions.databaseURL
    let app = Option("app", help: "Only this app's campaigns (default: every app).")
    let format = CommonOptions.format

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let settings = try CampaignSettingsStore(connection: try parsed.connect()).list(app: parsed.app)
        parsed.printListing(CampaignsCommand.listing(settings))
    }
}
