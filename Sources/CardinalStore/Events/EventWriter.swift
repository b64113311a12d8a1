import CardinalCore
import Foundation
public import PostgresClient

/// Writes batches of events durably: one transaction per batch, `COPY` into a temporary staging table, then
/// `INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING id` into `cardinal.events`, committed with
/// `synchronous_commit` on. The ids the insert returns tell stored events from duplicates of stored ones.
///
/// - Warning: owns its connection and, like it, must be used by one thread at a time.
public final class EventWriter {
    private let connection: PostgresConnection
    private var partitions: PartitionCache
    private var hasStagingTable = false

    /// Takes ownership of a connection that the writer alone will use.
    public init(connection: PostgresConnection) {
        self.connection = connection
        self.partitions = PartitionCache()
    }

    /// Whether the connection still works; a writer whose connection broke is replaced, not repaired.
    public var isUsable: Bool { connection.isUsable }

    /// Stores `events` and `rejections` in one transaction.
    /// - Returns: for each event, in order, `true` when it was stored now and `false` when an event with the same
    ///   time and id was already stored (by an earlier batch, or earlier in this one).
    /// - Throws: `PostgresError`; then nothing of the batch was stored.
    public func write(events: [EventRecord], rejections: [RejectionRecord]) throws -> [Bool] {
        do {
            return try writeOnce(events: events, rejections: rejections)
        } catch let error as PostgresError where error.isMissingPartition && !partitions.isEmpty {
            // A partition we believed in was dropped by retention (23514: no partition for the row): forget what
            // we knew and try once more, which creates it again.
            partitions.removeAll()
            return try writeOnce(events: events, rejections: rejections)
        }
    }

    private func writeOnce(events: [EventRecord], rejections: [RejectionRecord]) throws -> [Bool] {
        if !hasStagingTable {
            try connection.executeScript(EventColumns.createStagingTable)
            hasStagingTable = true
        }
        return try connection.transaction { connection in
            try connection.execute("set local synchronous_commit = on")
            try ensurePartitions(for: events)
            var inserted: [Bool] = []
            if !events.isEmpty {
                try connection.copyIn(EventColumns.copyIntoStaging) { writer in
                    for record in events {
                        try writer.writeRow(EventColumns.copyFields(of: record))
                    }
                }
                let rows = try connection.query(EventColumns.insertFromStaging)
                inserted = try Self.insertedFlags(for: events, returnedIDs: rows.map { try $0.decode(UUID.self, at: 0) })
            }
            if !rejections.isEmpty {
                try connection.copyIn(RejectionColumns.copyIntoRejectedEvents) { writer in
                    for record in rejections {
                        try writer.writeRow(RejectionColumns.copyFields(of: record))
                    }
                }
            }
            return inserted
        }
    }

    private func ensurePartitions(for events: [EventRecord]) throws {
        guard let earliest = events.map(\.event.time).min(), let latest = events.map(\.event.time).max(),
              !partitions.covers(earliest, latest)
        else {
            return
        }
        try connection.query("select cardinal.ensure_event_partitions($1, $2)", [earliest, latest])
        partitions.insert(earliest, latest)
    }

    /// Matches returned ids to the batch. An id returned once marks one event stored; any other event with the
    /// same id in the batch is a duplicate of it.
    static func insertedFlags(for events: [EventRecord], returnedIDs: [UUID]) -> [Bool] {
        var remaining: [UUID: Int] = [:]
        for id in returnedIDs {
            remaining[id, default: 0] += 1
        }
        return events.map { record in
            guard let count = remaining[record.event.id], count > 0 else {
                return false
            }
            remaining[record.event.id] = count - 1
            return true
        }
    }
}

extension PostgresError {
    /// An insert found no partition for a row's time (SQLSTATE 23514 with PostgreSQL's "no partition" message).
    fileprivate var isMissingPartition: Bool {
        sqlState == .checkViolation && message.contains("no partition")
    }
}
