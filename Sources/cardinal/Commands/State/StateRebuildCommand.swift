import ArgumentKit
import CardinalStore

/// `cardinal state rebuild`.
struct StateRebuildCommand: DatabaseCommand, LoggingCommand {
    static let name = "rebuild"
    static let abstract = "Rebuild an app's (or one campaign's) report state from its raw events."
    static let discussion: String? = """
        For after restoring a backup or fixing the fold. Safe while cardinald ingests: the state of \
        the app is dropped and its events queued again in one transaction, then folded; reports stay \
        exact throughout, only slower until the folds end.
        """

    let databaseURL = CommonOptions.databaseURL
    let app = RequiredOption("app", help: "The app to rebuild.")
    let campaign = Option("campaign", help: "Only this campaign (default: every campaign, canvas step and "
                              + "conversion of the app).", valueName: "id")
    let logLevel = CommonOptions.logLevel
    let logFormat = CommonOptions.logFormat

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let log = parsed.commandLog()
        try log.run {
            log.started(["state.app": parsed.app, "state.campaign": parsed.campaign ?? "*"])
            let connection = try parsed.connect()
            let app = try AppStore(connection: connection).find(name: parsed.app)
            let store = ReportStateStore(connection: connection)
            let scope = parsed.campaign.map { "campaign \($0) of \(app.name)" } ?? "app \(app.name)"
            let started = ContinuousClock.now
            log.step("state: queueing the events of \(scope)")
            let queued = try store.requeue(appID: app.id, campaign: parsed.campaign)
            log.step("state: folding \(queued.formatted()) events of \(scope)")
            _ = try StateCommand.foldAll(store) { left in
                let done = max(queued - left, 0)
                log.progress("state: folding the events of \(scope): \(done.formatted()) of \(queued.formatted()) "
                             + "(\(StateCommand.seconds(since: started)))")
            }
            try store.compactQueue()
            let elapsed = ContinuousClock.now - started
            let rate = Double(queued) / max(elapsed.seconds, 0.001)
            log.summary("finished", "state: rebuilt \(scope) from \(queued.formatted()) events in "
                        + "\(StateCommand.seconds(since: started)) (\(Int(rate).formatted()) events/s)",
                        ["state.events": String(queued)])
        }
    }
}
