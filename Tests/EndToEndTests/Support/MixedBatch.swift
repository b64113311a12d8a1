import Foundation

/// A batch of good and bad events, with the rejection each bad one must get.
struct MixedBatch {
    struct Expected {
        let index: Int
        let id: String?
        let code: String
        let raw: String
    }

    private(set) var elements: [String] = []
    private(set) var goodIDs: [UUID] = []
    private(set) var expectedRejections: [Expected] = []

    init() {
        let now = EpochMilliseconds.hoursAgo(0)
        let day: Int64 = 86_400_000
        good(TestEvent.impression())
        bad("missing_field", #"{"id":"%ID%","channel":"content_card","time":\#(now),"user_id":"u","campaign_id":"c"}"#)
        bad("invalid_uuid", #"{"id":"not-a-uuid","type":"impression","channel":"push","time":\#(now),"user_id":"u","campaign_id":"c"}"#, id: "not-a-uuid")
        good(TestEvent.impression(user: "user-2"))
        bad("unknown_field", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now),"user_id":"u","campain_id":"c"}"#)
        bad("time_in_future", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now + 3 * day),"user_id":"u","campaign_id":"c"}"#)
        bad("time_too_old", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now - 900 * day),"user_id":"u","campaign_id":"c"}"#)
        bad("control_interaction", #"{"id":"%ID%","type":"click","channel":"content_card","time":\#(now),"user_id":"u","campaign_id":"c","control":true}"#)
        bad("too_long", #"{"id":"%ID%","type":"impression","channel":"banner","time":\#(now),"user_id":"\#(String(repeating: "x", count: 512))","campaign_id":"c"}"#)
        bad("not_an_object", "42", id: nil)
        bad("invalid_type", #"{"id":"%ID%","type":"send","channel":"push","time":\#(now),"user_id":"u","campaign_id":"c","control":"true"}"#)
        let conversion = UUID()
        good(TestEvent(id: conversion, json: #"{"id":"\#(conversion.lowercased)","type":"conversion","time":\#(now),"user_id":"u","name":"signup"}"#))
        bad("not_allowed", #"{"id":"%ID%","type":"conversion","channel":"push","time":\#(now),"user_id":"u","name":"signup"}"#)
        bad("invalid_time", #"{"id":"%ID%","type":"impression","channel":"push","time":"yesterday","user_id":"u","campaign_id":"c"}"#)
        bad("missing_field", #"{"id":"%ID%","type":"impression","channel":"push","time":\#(now),"campaign_id":"c"}"#)
    }

    /// The counts of a `200` for this batch.
    var expectedCounts: IngestResult.Counts {
        IngestResult.Counts(accepted: goodIDs.count, duplicates: 0, rejected: expectedRejections.count)
    }

    /// `{"events":[…]}` of every element in order.
    var body: [UInt8] {
        Array("{\"events\":[\(elements.joined(separator: ","))]}".utf8)
    }

    private mutating func good(_ event: TestEvent) {
        elements.append(event.json)
        goodIDs.append(event.id)
    }

    /// A bad element; `%ID%` in it (and in `id`, the `id` the rejection must show) is replaced by a new UUID.
    private mutating func bad(_ code: String, _ template: String, id: String? = "%ID%") {
        let newID = UUID().lowercased
        let json = template.replacingOccurrences(of: "%ID%", with: newID)
        let expectedID = id?.replacingOccurrences(of: "%ID%", with: newID)
        expectedRejections.append(Expected(index: elements.count, id: expectedID, code: code, raw: json))
        elements.append(json)
    }
}
