import Foundation
import PostgresClient

/// How a `RejectionRecord` maps onto `cardinal.rejected_events`.
enum RejectionColumns {
    static let copyIntoRejectedEvents = """
        copy cardinal.rejected_events
            (app_id, received_at, request_id, event_index, event_id, code, message, raw)
        from stdin
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
