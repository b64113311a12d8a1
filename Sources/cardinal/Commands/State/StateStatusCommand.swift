import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal state status`.
struct StateStatusCommand: DatabaseCommand, ListingCommand {
    static let name = "status"
    static let abstract = "Show how many stored events wait for the fold, how old the oldest is, and how fast the "
        + "fold drains them."
    static let discussion: String? = """
        The rates count every fold of the database (each cardinald's, and cardinal state fold's) since the \
        latest fold that began 5 minutes ago or earlier: events folded per second (fold), per second spent \
        folding (capacity), and events added to the backlog per second (arrival). drain_seconds is \
        unfolded_events / (capacity - arrival): 0 when nothing waits, 'never' when the fold does not gain on \
        the backlog, empty when no fold was measured.
        """

    let databaseURL = CommonOptions.databaseURL
    let format = CommonOptions.format

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let backlog = try ReportStateStore(connection: try parsed.connect()).backlog()
        let fold = backlog.fold
        parsed.printListing(TextTable(
            header: ["unfolded_events", "oldest_age_seconds", "fold_events_per_second", "capacity_events_per_second",
                     "arrival_events_per_second", "drain_seconds"],
            rows: [[String(backlog.events), backlog.oldestAgeSeconds.map(tenths), fold.eventsPerSecond.map(tenths),
                    fold.capacityEventsPerSecond.map(tenths), fold.arrivalEventsPerSecond.map(tenths),
                    fold.drainSeconds.map { $0.isInfinite ? "never" : tenths($0) }]]
        ))
    }

    /// `value` with one decimal.
    private static func tenths(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
