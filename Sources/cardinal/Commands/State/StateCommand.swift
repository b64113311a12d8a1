import ArgumentKit
import CardinalStore
import Foundation
import PostgresClient

/// `cardinal state …`: the report state the reports read (SQL/code/050–080).
enum StateCommand {
    static let tree = CommandTree.group(
        "state",
        abstract: "Fold stored events into the report state, show its backlog, or rebuild it from raw events.",
        discussion: """
            cardinald folds stored events into the report state every 5 seconds (--fold-interval); the reports \
            also count events not folded yet, so they are exact either way and the state only makes them fast.
            """,
        subcommands: [.command(StateFoldCommand.self), .command(StateStatusCommand.self), .command(StateRebuildCommand.self)]
    )

    /// Folds until no re-queued event is left (a fold takes a long queue in parts), waiting while another fold
    /// holds the state lock and trying again when one raced it; `progress` hears after each fold how many queued
    /// events are left.
    /// - Returns: how many events this loop folded.
    static func foldAll(
        _ store: ReportStateStore, progress: (_ queued: Int64) -> Void = { _ in }
    ) throws -> Int64 {
        var total: Int64 = 0
        while true {
            let folded: Int64?
            do {
                folded = try store.fold()
            } catch let error as PostgresError where error.sqlState == .serializationFailure {
                folded = nil
            }
            guard let folded else {
                Thread.sleep(forTimeInterval: 0.2)
                continue
            }
            total += folded
            let queued = try store.queuedEvents()
            if queued == 0 {
                return total
            }
            progress(queued)
        }
    }

    /// The time since `start`, as `1.2 s`.
    static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.1f s", (ContinuousClock.now - start).seconds)
    }
}
