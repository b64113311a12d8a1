import ArgumentKit
import CardinalStore
import Foundation

/// `cardinal state …`: the report state the reports read (SQL/migrations/0015_report_state.sql).
enum StateCommand {
    static let tree = CommandTree.group(
        "state",
        abstract: "Fold stored events into the report state, show its backlog, or rebuild it from raw events.",
        discussion: """
            cardinald folds stored events into the report state every second (--fold-interval); the reports \
            also count events not folded yet, so they are exact either way and the state only makes them fast.
            """,
        subcommands: [.command(StateFoldCommand.self), .command(StateStatusCommand.self), .command(StateRebuildCommand.self)]
    )

    /// Folds until the database says it folded; waits while another fold holds the state lock.
    static func foldAll(_ store: ReportStateStore) throws -> Int64 {
        while true {
            if let folded = try store.fold() {
                return folded
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// The time since `start`, as `1.2 s`.
    static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.1f s", (ContinuousClock.now - start).seconds)
    }
}
