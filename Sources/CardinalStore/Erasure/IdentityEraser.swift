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
            from cardinal.erase_identity(\(appID), \(target.kind.rawValue), \(target.id), \(dryRun))
            """
        )
        guard let row = rows.first else {
            throw PostgresDecodingFailure("cardinal.erase_identity returned no row")
        }
        return ErasureRecord(
            erasureID: try row.decode(Int64?.self, column: "erasure_id"),
            erasedAt: try row.decode(Date?.self, column: "erased_at"),
            identityHash: try row.decode([UInt8].self, column: "identity_hash"),
            events: try row.decode(Int64.self, column: "events"),
            rejectedEvents: try row.decode(Int64.self, column: "rejected_events"),
            reportUserState: try row.decode(Int64.self, column: "report_user_state"),
            reportSessionState: try row.decode(Int64.self, column: "report_session_state"),
            reportConversionState: try row.decode(Int64.self, column: "report_conversion_state"),
            reportDailyCounts: try row.decode(Int64.self, column: "report_daily_counts"),
            reportFoldQueue: try row.decode(Int64.self, column: "report_fold_queue"),
            reportGroups: try row.decode(Int64.self, column: "report_groups"),
            requeuedEvents: try row.decode(Int64.self, column: "requeued_events")
        )
    }
}
