import CardinalCore
import Foundation
public import PostgresClient

/// Writes batches of events durably: one transaction per batch, `COPY` into a temporary staging table, then
/// `INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING id` into `cardinal.events`, committed with
/// `synchronous_commit` on. The ids the insert returns tell stored events from duplicates of stored ones.
///
/// A commit that PostgreSQL reports as successful is not always durable in the sense the API promises: with
/// `synchronous_standby_names` set and the standby down, a commit waits; when that wait is cancelled
/// (`pg_cancel_backend`, a client's cancel request; on PostgreSQL 15 `statement_timeout` does not end it, it
/// is disabled before the commit), the server reports success with only a WARNING ("canceling wait for
/// synchronous replication due to user request"): committed on the primary, not replicated. The writer
/// watches its connection's notices for that warning and throws ``EventWriteError/commitNotReplicated``.
///
/// The staging tables are emptied by the insert that reads them (`DELETE … RETURNING`), not at commit: `ON
/// COMMIT DELETE ROWS` truncates every such table of the session at each commit, which on this disk is an
/// `ftruncate` of each table's heap, TOAST table and TOAST index and a rebuild of that index. With two writers
/// committing 100-row batches (pgbench) a transaction took 3.0–3.4 ms that way and 1.5–1.8 ms this way, and
/// at half the ingest peak the writers' backends waited in `DataFileTruncate` 6.9 % of the time. The deleted
/// rows' pages stay until the writer truncates the table, once every ``stagedRowsBeforeTruncate`` rows.
///
/// - Warning: owns its connection and, like it, must be used by one thread at a time. It takes over the
///   connection's ``PostgresClient/PostgresConnection/noticeHandler``.
public final class EventWriter {
    /// How many rows a staging table takes before the writer truncates it. Every batch's scan of the table reads
    /// the pages of the rows deleted since; 2,048 of the ingest bench's events fill 42 pages, well inside a
    /// session's temporary buffers (8 MB by default), so those pages are never written out.
    static let stagedRowsBeforeTruncate = 2048

    private let connection: PostgresConnection
    private var partitions: PartitionCache
    private var hasStagingTables = false
    /// Rows copied into each staging table since it was last truncated (those of rolled-back batches too).
    private var stagedEvents = 0
    private var stagedRejections = 0
    private let replicationWarnings = ReplicationWarningRecorder()

    /// Takes ownership of a connection that the writer alone will use.
    public init(connection: PostgresConnection) {
        self.connection = connection
        self.partitions = PartitionCache()
        let recorder = replicationWarnings
        connection.noticeHandler = { notice in recorder.note(notice) }
    }

    /// Opens a connection of the writer's own, on which no statement may run longer than `statementTimeout`.
    public static func connect(connectionString: String, statementTimeout: Duration) throws -> EventWriter {
        let connection = try PostgresConnection(connectionString: connectionString)
        let milliseconds = statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000
        try connection.execute("select set_config('statement_timeout', \(String(milliseconds)), false)")
        return EventWriter(connection: connection)
    }

    /// Whether the connection still works; a writer whose connection broke is replaced, not repaired.
    public var isUsable: Bool { connection.isUsable }

    /// Stores `events` and `rejections` in one transaction.
    /// - Returns: for each event, in order, `true` when it was stored now and `false` when an event with the same
    ///   app, time and id was already stored (by an earlier batch, or earlier in this one).
    /// - Throws: `PostgresError`, or ``EventWriteError/timeOutsidePartitionRange(_:)`` when an event's time lies
    ///   outside the range the database makes partitions for; then nothing of the batch was stored.
    ///   ``EventWriteError/commitNotReplicated`` when the commit returned without the synchronous standby's
    ///   confirmation: the batch is stored on the primary but may be lost with it.
    public func write(events: [EventRecord], rejections: [RejectionRecord]) throws -> [Bool] {
        do {
            return try writeOnce(events: events, rejections: rejections)
        } catch let error as PostgresError where error.isNoPartitionForRow && !partitions.isEmpty {
            // A partition we believed in was dropped by retention since: forget what we knew and try once more,
            // which creates it again.
            partitions.removeAll()
            return try writeOnce(events: events, rejections: rejections)
        }
    }

    private func writeOnce(events: [EventRecord], rejections: [RejectionRecord]) throws -> [Bool] {
        if !hasStagingTables {
            try connection.executeScript(EventColumns.createStagingTable)
            try connection.executeScript(RejectionColumns.createStagingTable)
            hasStagingTables = true
        }
        try truncateFullStagingTables()
        try ensurePartitions(for: events)
        replicationWarnings.reset()
        let inserted = try connection.transaction { connection in
            try connection.execute("set local synchronous_commit = on")
            var inserted: [Bool] = []
            if !events.isEmpty {
                stagedEvents += events.count
                try connection.copyIn(EventColumns.copyIntoStaging) { writer in
                    for record in events {
                        try writer.writeRow(EventColumns.copyFields(of: record))
                    }
                }
                let stored = try connection.query(EventColumns.insertFromStaging).map { row in
                    StoredKey(
                        appID: try row.decode(Int64.self, column: "app_id"), id: try row.decode(UUID.self, column: "id"),
                        timeMicroseconds: try row.decode(Int64.self, column: "time_microseconds")
                    )
                }
                inserted = Self.insertedFlags(for: events, stored: stored)
            }
            if !rejections.isEmpty {
                stagedRejections += rejections.count
                try connection.copyIn(RejectionColumns.copyIntoStaging) { writer in
                    for record in rejections {
                        try writer.writeRow(RejectionColumns.copyFields(of: record))
                    }
                }
                try connection.execute(RejectionColumns.insertFromStaging)
            }
            return inserted
        }
        if replicationWarnings.sawCancelledWait {
            throw EventWriteError.commitNotReplicated
        }
        return inserted
    }

    /// Gives back the pages of the rows deleted from a staging table once it has taken
    /// ``stagedRowsBeforeTruncate`` rows, in a transaction of its own before the batch's.
    private func truncateFullStagingTables() throws {
        let eventsFull = stagedEvents >= Self.stagedRowsBeforeTruncate
        let rejectionsFull = stagedRejections >= Self.stagedRowsBeforeTruncate
        guard eventsFull || rejectionsFull else {
            return
        }
        let tables = (eventsFull ? [EventColumns.stagingTable] : []) + (rejectionsFull ? [RejectionColumns.stagingTable] : [])
        try connection.execute("truncate \(tables.joined(separator: ", "))")
        if eventsFull {
            stagedEvents = 0
        }
        if rejectionsFull {
            stagedRejections = 0
        }
    }

    /// Creates missing partitions in a transaction of their own (autocommit), before the batch's: a batch that
    /// rolls back must not leave the cache believing in partitions that were rolled back with it, and the
    /// partitions' locks are not held for the batch's duration.
    private func ensurePartitions(for events: [EventRecord]) throws {
        guard let earliest = events.map(\.event.time).min(), let latest = events.map(\.event.time).max(),
              !partitions.covers(earliest, latest)
        else {
            return
        }
        do {
            try connection.query("select cardinal.ensure_event_partitions(\(earliest), \(latest))")
        } catch let error as PostgresError where error.sqlState == .invalidParameterValue {
            throw EventWriteError.timeOutsidePartitionRange(error)
        }
        partitions.insert(earliest, latest)
    }

    /// The primary key of a stored event, as the insert returns it.
    struct StoredKey: Hashable {
        let appID: Int64
        let id: UUID
        let timeMicroseconds: Int64
    }

    /// Matches the returned keys to the batch. A key returned once marks one event stored; any other event with
    /// the same key in the batch is a duplicate of it. Matching on the whole key, not the id alone, keeps two
    /// requests (or apps) that happen to reuse an id from trading their counts.
    static func insertedFlags(for events: [EventRecord], stored: [StoredKey]) -> [Bool] {
        var remaining = Set(stored)
        return events.map { record in
            let key = StoredKey(appID: record.appID, id: record.event.id, timeMicroseconds: record.event.timeMicroseconds)
            return remaining.remove(key) != nil
        }
    }
}
