import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal retention apply`.
struct RetentionApplyCommand: DatabaseCommand, ListingCommand, LoggingCommand {
    static let name = "apply"
    static let abstract = "Drop expired event partitions and delete expired rejected events, or list them."
    static let discussion: String? = """
        Events are dropped a monthly partition at a time, once the whole month is older than the \
        retention; the apps that had events in it get their report state rebuilt from what is left, \
        so reports stay exact. Rejected events are deleted by the time they were received. Run it \
        daily (the installed cardinal-retention.timer, or cron). Standard output lists what went \
        (with --dry-run: what would go); rows of a partition are the planner's estimate.
        Partitions hold every app's events: with --app only that app's rejected events are deleted.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = Option("app", help: "Only this app's rejected events (partitions are left alone).")
    let format = CommonOptions.format
    let dryRun = Flag("dry-run", help: "List what would be dropped and deleted, change nothing.")
    let logLevel = CommonOptions.logLevel
    let logFormat = CommonOptions.logFormat

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let log = parsed.commandLog()
        try log.run {
            log.started(["retention.app": parsed.app ?? "*", "retention.dry_run": String(parsed.dryRun)])
            try apply(parsed, log: log)
        }
    }

    private static func apply(_ parsed: ParsedCommand<Self>, log: CommandLog) throws {
        let dryRun = parsed.dryRun
        let connection = try parsed.connect()
        let apps = try AppStore(connection: connection).list()
        let app = try parsed.app.map { try AppStore(connection: connection).find(name: $0) }
        let store = RetentionStore(connection: connection)

        let partitions = app == nil ? try store.expiredPartitions() : []
        let rejections = try store.expiredRejections(appID: app?.id)
        var dropped = partitions.map(\.relation)
        var deleted = rejections.reduce(0) { $0 + $1.count }
        if !dryRun {
            log.step("retention: dropping \(partitions.count) expired partitions and deleting \(deleted.formatted()) "
                     + "expired rejected events")
            dropped = app == nil ? try store.dropExpiredPartitions() : []
            deleted = try store.deleteExpiredRejections(appID: app?.id)
        }

        let names = Dictionary(uniqueKeysWithValues: apps.map { ($0.id, $0.name) })
        parsed.printListing(TextTable(
            header: ["kind", "target", "from", "to", "rows"],
            rows: partitions.filter { dropped.contains($0.relation) }.map {
                ["partition", $0.relation, $0.from.formatted(.iso8601), $0.to.formatted(.iso8601),
                 String($0.estimatedEvents)]
            } + rejections.map {
                ["rejected_events", names[$0.appID] ?? String($0.appID), $0.oldest.formatted(.iso8601),
                 $0.newest.formatted(.iso8601), String($0.count)]
            }
        ))

        let verb = dryRun ? "would drop" : "dropped"
        let scope = app.map { "; partitions hold every app's events and are left alone with --app \($0.name)" } ?? ""
        log.summary("finished", "retention: \(dryRun ? "dry run, nothing changed: " : "")\(verb) \(dropped.count) "
                    + "\(dropped.count == 1 ? "partition" : "partitions") and \(dryRun ? "would delete" : "deleted") "
                    + "\(deleted.formatted()) rejected events\(scope)",
                    ["retention.partitions": String(dropped.count), "retention.rejected_events": String(deleted)])
        if !dryRun && dropped.count < partitions.count {
            log.summary("incomplete", "retention: \(partitions.count - dropped.count) expired partitions were busy; "
                        + "the next run drops them", level: .warning)
            throw CommandExit(code: ExitCode.failure)
        }
    }
}
