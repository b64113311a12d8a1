import Foundation

/// One event as a test sends it: its id and its JSON text.
struct TestEvent: Sendable, Hashable {
    let id: UUID
    let json: String

    /// An event from its JSON text; `id` must be the `id` inside it (or any id, for events meant to be
    /// rejected).
    init(id: UUID = UUID(), json: String) {
        self.id = id
        self.json = json
    }

    /// A valid content card impression of `user` in `campaign`, at `time` (epoch milliseconds, an hour ago
    /// by default, so well inside the accepted window).
    static func impression(
        id: UUID = UUID(), user: String = "user-1", campaign: String = "campaign-1",
        time: Int64 = EpochMilliseconds.hoursAgo(1)
    ) -> TestEvent {
        TestEvent(id: id, json: """
            {"id":"\(id.uuidString.lowercased())","type":"impression","channel":"content_card",\
            "time":\(time),"user_id":"\(user)","campaign_id":"\(campaign)"}
            """)
    }

    /// `count` valid impressions with new ids.
    static func impressions(_ count: Int, user: String = "user-1") -> [TestEvent] {
        (0..<count).map { _ in impression(user: user) }
    }

    /// `{"events":[…]}`.
    static func jsonBatch(_ events: [TestEvent]) -> [UInt8] {
        Array("{\"events\":[\(events.map(\.json).joined(separator: ","))]}".utf8)
    }

    /// One event a line, with a final newline.
    static func ndjson(_ events: [TestEvent]) -> [UInt8] {
        Array(events.map { $0.json + "\n" }.joined().utf8)
    }
}

/// Event times as the API takes them.
enum EpochMilliseconds {
    /// Now minus `hours`, in epoch milliseconds.
    static func hoursAgo(_ hours: Double) -> Int64 {
        Int64((Date.now.timeIntervalSince1970 - hours * 3600) * 1000)
    }

    /// `date` as RFC 3339 in UTC with milliseconds, e.g. `2026-11-29T10:15:30.123Z`.
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
