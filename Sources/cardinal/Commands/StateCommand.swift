import ArgumentKit
import CardinalReports
import CardinalStore
import Foundation

/// `cardinal state …`: the report state the reports read (SQL/migrations/0015_report_state.sql).
enum StateCommand {
    static let spec = CommandSpec(
        name: "state",
        abstract: "Fold stored events into the report state, show its backlog, or rebuild it from raw events.",
        discussion: """
            cardinald folds stored events into the report state every second (--fold-interval); the reports \
            also count events not folded yet, so they are exact either way and the state only makes them fast.
            """,
        subcommands: [
            CommandSpec(
                name: "fold",
                abstract: "Fold every stored event not folded yet, now (after a bulk load, or without a daemon).",
                options: [CommonOptions.databaseURL]
            ),
            CommandSpec(
                name: "status",
                abstract: "Show how many stored events wait for the fold and how old the oldest is.",
                options: [CommonOptions.databaseURL, CommonOptions.format]
            ),
            CommandSpec(
                name: "rebuild",
                abstract: "Rebuild an app's (or one campaign's) report state from its raw events.",
                discussion: """
                    For after restoring a backup or fixing the fold. Safe while cardinald ingests: the state of \
                    the app is dropped and its events queued again in one transaction, then folded; reports stay \
                    exact throughout, only slower until the fold ends.
                    """,
                options: [
                    CommonOptions.databaseURL,
                    OptionSpec("app", help: "The app to rebuild.", isRequired: true),
                    OptionSpec("campaign", help: "Only this campaign (default: every campaign, canvas step and "
                                   + "conversion of the app).", valueName: "id"),
                ]
            ),
        ]
    )

    static func fold(_ context: CommandContext) throws {
        let store = ReportStateStore(connection: try context.connect())
        let progress = ProgressLine()
        progress.show("state: folding \(try store.backlog().events.formatted()) events")
        let started = ContinuousClock.now
        let folded = try foldAll(store)
        progress.clear()
        context.warn("state: folded \(folded.formatted()) events in \(seconds(since: started))")
    }

    static func status(_ context: CommandContext) throws {
        let backlog = try ReportStateStore(connection: try context.connect()).backlog()
        context.printListing(TextTable(
            header: ["unfolded_events", "oldest_age_seconds"],
            rows: [[String(backlog.events), backlog.oldestAgeSeconds.map { String(format: "%.1f", $0) }]]
        ))
    }

    static func rebuild(_ context: CommandContext) throws {
        let arguments = context.arguments
        let connection = try context.connect()
        let app = try AppStore(connection: connection).find(name: arguments.option("app") ?? "")
        let campaign = arguments.option("campaign")
        let store = ReportStateStore(connection: connection)
        let progress = ProgressLine()
        let scope = campaign.map { "campaign \($0) of \(app.name)" } ?? "app \(app.name)"
        let started = ContinuousClock.now
        progress.show("state: queueing the events of \(scope)")
        let queued = try store.requeue(appID: app.id, campaign: campaign)
        progress.show("state: folding \(queued.formatted()) events of \(scope)")
        _ = try foldAll(store)
        progress.clear()
        let elapsed = ContinuousClock.now - started
        let rate = Double(queued) / max(elapsed.seconds, 0.001)
        context.warn("state: rebuilt \(scope) from \(queued.formatted()) events in \(seconds(since: started)) "
                     + "(\(Int(rate).formatted()) events/s)")
    }

    /// Folds until the database says it folded; waits while another fold holds the state lock.
    private static func foldAll(_ store: ReportStateStore) throws -> Int64 {
        while true {
            if let folded = try store.fold() {
                return folded
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    private static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.1f s", (ContinuousClock.now - start).seconds)
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
