import ArgumentKit
import CardinalStore

/// `cardinal state fold`.
struct StateFoldCommand: DatabaseCommand {
    static let name = "fold"
    static let abstract = "Fold every stored event not folded yet, now (after a bulk load, or without a daemon)."

    let databaseURL = CommonOptions.databaseURL

    static func run(_ parsed: ParsedCommand<Self>) throws {
        let store = ReportStateStore(connection: try parsed.connect())
        let progress = ProgressLine()
        defer { progress.clear() }
        progress.show("state: folding \(try store.backlog().events.formatted()) events")
        let started = ContinuousClock.now
        let folded = try StateCommand.foldAll(store)
        progress.clear()
        Console.warn("state: folded \(folded.formatted()) events in \(StateCommand.seconds(since: started))")
    }
}
