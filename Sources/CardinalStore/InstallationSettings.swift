import CardinalCore
public import PostgresClient

/// The installation-wide settings of `cardinal.settings` (one row).
public struct InstallationSettings: Sendable, Equatable {
    /// Days of events kept; older events are rejected at ingest and their partitions dropped by retention.
    public let retentionDays: Int

    /// Reads the settings row.
    public static func load(from connection: PostgresConnection) throws -> InstallationSettings {
        let rows = try connection.query("select retention_days from cardinal.settings")
        return InstallationSettings(retentionDays: try rows.first?.decode(Int.self, column: "retention_days") ?? Limits.defaultRetentionDays)
    }
}
