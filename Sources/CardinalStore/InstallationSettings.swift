import CardinalCore
public import PostgresClient

/// The installation-wide settings of `cardinal.settings` (one row).
public struct InstallationSettings: Sendable, Equatable {
    /// Days of events kept; older events are rejected at ingest and their partitions dropped by retention.
    public let retentionDays: Int

    /// Reads the settings row.
    public static func load(from connection: PostgresConnection) throws -> InstallationSettings {
        let columns = sqlColumns
        let rows = try connection.query("select \(columns.selectList) from \(columns.objectName)")
        let retentionDays = try rows.first?.decode(Int.self, column: columns["retention_days"])
        return InstallationSettings(retentionDays: retentionDays ?? Limits.defaultRetentionDays)
    }
}

extension InstallationSettings {
    /// The columns of `cardinal.settings` that ``load(from:)`` selects and decodes.
    public static let sqlColumns = SQLColumns(.relation, "cardinal.settings", complete: false, [
        SQLColumn("retention_days", "integer"),
    ])
}
