import Foundation
public import PostgresClient

/// Applies the retention (`settings.retention_days`): drops the expired partitions of `cardinal.events`, whose
/// apps get their report state rebuilt, and deletes expired rejected events; or lists what would go.
public struct RetentionStore {
    private let connection: PostgresConnection

    /// Works on the database behind `connection`, which must be a member of `cardinal_owner`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The partitions ``dropExpiredPartitions()`` would drop now, oldest first.
    public func expiredPartitions() throws -> [ExpiredPartition] {
        let columns = ExpiredPartition.sqlColumns
        return try connection.query("select \(columns.selectList) from \(columns.objectName)()").map {
            ExpiredPartition(
                relation: try $0.decode(String.self, column: columns["relation"]),
                from: try $0.decode(Date.self, column: columns["from_time"]),
                to: try $0.decode(Date.self, column: columns["to_time"]),
                estimatedEvents: try $0.decode(Int64.self, column: columns["estimated_events"])
            )
        }
    }

    /// Drops the expired partitions and rebuilds the report state of the apps that had events in them.
    /// - Returns: the partitions dropped; fewer than listed when one was busy (the database warns; run again).
    public func dropExpiredPartitions() throws -> [String] {
        let columns = Self.droppedPartitionColumns
        return try connection.query("select \(columns.selectList) from \(columns.objectName)()")
            .map { try $0.decode(String.self, column: columns["drop_expired_event_partitions"]) }
    }

    /// The rejected events ``deleteExpiredRejections(appID:)`` would delete now, per app.
    /// - Parameter appID: one app, or `nil` for every app.
    public func expiredRejections(appID: Int64? = nil) throws -> [ExpiredRejections] {
        let columns = ExpiredRejections.sqlColumns
        return try connection.query(
            "select \(columns.selectList) from \(columns.objectName)(null, \(appID))"
        ).map {
            ExpiredRejections(
                appID: try $0.decode(Int64.self, column: columns["app_id"]),
                count: try $0.decode(Int64.self, column: columns["rejected_events"]),
                oldest: try $0.decode(Date.self, column: columns["oldest"]),
                newest: try $0.decode(Date.self, column: columns["newest"])
            )
        }
    }

    /// Deletes the expired rejected events of one app, or of every app.
    /// - Returns: how many were deleted.
    public func deleteExpiredRejections(appID: Int64? = nil) throws -> Int64 {
        let columns = Self.deletedRejectionColumns
        return try connection.query("select \(columns.selectList) from \(columns.objectName)(null, \(appID))")
            .first?.decode(Int64.self, column: columns["delete_expired_rejected_events"]) ?? 0
    }
}
