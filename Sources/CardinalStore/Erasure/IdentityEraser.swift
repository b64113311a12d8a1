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
        let columns = ErasureRecord.sqlColumns
        let rows = try connection.query(
            """
            select \(columns.selectList)
            from \(columns.objectName)(\(appID), \(target.kind.rawValue), \(target.id), \(dryRun))
            """
        )
        guard let row = rows.first else {
            throw PostgresDecodingFailure("cardinal.erase_identity returned no row")
        }
        return ErasureRecord(
            erasureID: try row.decode(Int64?.self, column: columns["erasure_id"]),
            erasedAt: try row.decode(Date?.self, column: columns["erased_at"]),
            identityHash: try row.decode([UInt8].self, column: columns["identity_hash"]),
            events: try row.decode(Int64.self, column: columns["events"]),
            rejectedEvents: try row.decode(Int64.self, column: columns["rejected_events"]),
            reportUserState: try row.decode(Int64.self, column: columns["report_user_state"]),
            reportSessionState: try row.decode(Int64.self, column: columns["report_session_state"]),
            reportConversionState: try row.decode(Int64.self, column: columns["report_conversion_state"]),
            reportDailyCounts: try row.decode(Int64.self, column: columns["report_daily_counts"]),
            reportFoldQueue: try row.decode(Int64.self, column: columns["report_fold_queue"]),
            reportGroups: try row.decode(Int64.self, column: columns["report_groups"]),
            requeuedEvents: try row.decode(Int64.self, column: columns["requeued_events"])
        )
    }
}
