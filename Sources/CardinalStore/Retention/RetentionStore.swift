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
        try connection.query(
            "select relation, from_time, to_time, estimated_events from cardinal.expired_event_partitions()"
        ).map {
            ExpiredPartition(
                relation: try $0.decode(String.self, at: 0), from: try $0.decode(Date.self, at: 1),
                to: try $0.decode(Date.self, at: 2), estimatedEvents: try $0.decode(Int64.self, at: 3)
            )
        }
    }

    /// Drops the expired partitions and rebuilds the report state of the apps that had events in them.
    /// - Returns: the partitions dropped; fewer than listed when one was busy (the database warns; run again).
    public func dropExpiredPartitions() throws -> [String] {
        try connection.query("select * from cardinal.drop_expired_event_partitions()")
            .map { try $0.decode(String.self, at: 0) }
    }

    /// The rejected events ``deleteExpiredRejections(appID:)`` would delete now, per app.
    /// - Parameter appID: one app, or `nil` for every app.
    public func expiredRejections(appID: Int64? = nil) throws -> [ExpiredRejections] {
        try connection.query(
            "select app_id, rejected_events, oldest, newest from cardinal.expired_rejected_events(null, $1)", [appID]
        ).map {
            ExpiredRejections(
                appID: try $0.decode(Int64.self, at: 0), count: try $0.decode(Int64.self, at: 1),
                oldest: try $0.decode(Date.self, at: 2), newest: try $0.decode(Date.self, at: 3)
            )
        }
    }

    /// Deletes the expired rejected events of one app, or of every app.
    /// - Returns: how many were deleted.
    public func deleteExpiredRejections(appID: Int64? = nil) throws -> Int64 {
        try connection.query("select cardinal.delete_expired_rejected_events(null, $1)", [appID])
            .first?.decode(Int64.self, at: 0) ?? 0
    }
}
