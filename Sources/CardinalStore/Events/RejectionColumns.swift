import Foundation
import PostgresClient

/// How a `RejectionRecord` maps onto `cardinal.rejected_events`.
enum RejectionColumns {
    private static let list: PostgresQuery = "app_id, received_at, request_id, event_index, event_id, code, message, raw"

    /// The staging table, as the statements below and ``EventWriter``'s periodic truncation name it.
    static let stagingTable: PostgresQuery = "pg_temp.rejection_staging"

    static let createStagingTable = """
        create temporary table if not exists rejection_staging (
            app_id bigint, received_at timestamptz, request_id text, event_index integer, event_id text,
            code text, message text, raw text
        ) on commit preserve rows
        """

    static let copyIntoStaging = "copy \(stagingTable.sql) (\(list.sql)) from stdin"

    /// A rejection already stored under its request id and position (a batch replayed from the spool after a
    /// crash) is skipped. The staged rows leave the staging table as they are read, as in
    /// ``EventColumns/insertFromStaging``.
    static let insertFromStaging: PostgresQuery = """
        with staged as (
            delete from \(stagingTable)
            returning \(list)
        )
        insert into cardinal.rejected_events (\(list))
        select \(list) from staged
        on conflict (request_id, event_index) do nothing
        """

    static func copyFields(of record: RejectionRecord) -> [String?] {
        let rejection = record.rejection
        return [
            String(record.appID), record.receivedAt.postgresText, record.requestID, String(rejection.index),
            rejection.id.map(storable), rejection.code.rawValue, storable(rejection.message),
            storable(rejection.rawJSON),
        ]
    }

    /// PostgreSQL text cannot hold NUL, and a rejected event may be rejected precisely for carrying one; the
    /// evidence is kept with U+FFFD in its place rather than failing the whole batch.
    private static func storable(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }
}
