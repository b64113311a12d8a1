import Foundation
public import PostgresClient

/// Erases identities from an app with `cardinal.erase_identity`: their events, rejected events and
/// report state, one transaction per identity, each leaving an audit row that keeps only a salted hash.
public struct IdentityEraser {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`, which must be a member of `cardinal_owner`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Erases one identity in a transaction of its own (the statement's), or with `dryRun` counts what would go
    /// and changes nothing.
    /// - Throws: `PostgresError` (`.invalidParameterValue` for an empty id or an unknown app id).
    public func erase(_ target: ErasureTarget, appID: Int64, dryRun: Bool = false) throws -> ErasureRecord {
        let rows = try connection.query(
            """
            select erasure_id, erased_at, identity_hash, events, rejected_events, report_user_state,
                   report_session_state, report_conversion_state, report_daily_counts, report_fold_queue,
                   report_groups, requeued_events
            from cardinal.erase_identity($1, $2, $3, $4)
            """,
            [appID, target.kind.rawValue, target.id, dryRun]
        )
        guard let row = rows.first else {
            throw PostgresDecodingFailure("cardinal.erase_identity returned no row")
        }
        return ErasureRecord(
            erasureID: try row.decode(Int64?.self, at: 0),
            erasedAt: try row.decode(Date?.self, at: 1),
            identityHash: try row.decode([UInt8].self, at: 2),
            events: try row.decode(Int64.self, at: 3),
            rejectedEvents: try row.decode(Int64.self, at: 4),
            reportUserState: try row.decode(Int64.self, at: 5),
            reportSessionState: try row.decode(Int64.self, at: 6),
            reportConversionState: try row.decode(Int64.self, at: 7),
            reportDailyCounts: try row.decode(Int64.self, at: 8),
            reportFoldQueue: try row.decode(Int64.self, at: 9),
            reportGroups: try row.decode(Int64.self, at: 10),
            requeuedEvents: try row.decode(Int64.self, at: 11)
        )
    }
}
