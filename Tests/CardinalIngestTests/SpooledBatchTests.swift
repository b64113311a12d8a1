import CardinalCore
import CardinalStore
import Foundation
import Testing

@testable import CardinalIngest

@Suite struct SpooledBatchTests {
    static func sampleBatch() -> SpooledBatch {
        let full = Event(
            id: UUID(), type: .click, channel: .inAppMessage, time: Date(timeIntervalSince1970: 1_780_000_000.123456),
            userID: "user-ü", deviceID: "device", sessionID: "session", source: .canvas(id: "canvas", stepID: "step"),
            variantID: "v1", control: false, messageID: "m", placementID: "p", buttonID: "b", url: "https://x.test/?a=1",
            platform: .android, sdkVersion: "1.2", appVersion: "3.4", osVersion: "14", test: true,
            conversionName: nil, value: nil, currency: nil, propertiesJSON: #"{"k":[1,2.50,"x"]}"#
        )
        let conversion = Event(id: UUID(), type: .conversion, time: Date(timeIntervalSince1970: 1_780_000_001),
                               deviceID: "d2", conversionName: "purchase", value: Decimal(string: "-19.990"), currency: "EUR")
        let bare = Event(id: UUID(), type: .impression, channel: .banner, time: .now, userID: "u", source: .campaign("c"))
        let rejection = EventRejection(index: 3, id: "not-a-uuid", code: .invalidUUID, message: "bad id", rawJSON: #"{"id":"not-a-uuid"}"#)
        return SpooledBatch(
            spooledAt: .now,
            events: [full, conversion, bare].map { EventRecord(appID: 42, event: $0, receivedAt: .now) },
            rejections: [RejectionRecord(appID: 42, requestID: "r-1", receivedAt: .now, rejection: rejection)]
        )
    }

    @Test("A batch decodes to exactly the events and rejections it was encoded from")
    func roundTrip() throws {
        let batch = Self.sampleBatch()
        let decoded = try SpooledBatch(decoding: batch.encoded()[...])
        #expect(decoded.spooledAt == batch.spooledAt)
        #expect(decoded.events.map(\.event) == batch.events.map(\.event))
        #expect(decoded.events.map(\.appID) == batch.events.map(\.appID))
        #expect(decoded.events.map(\.receivedAt) == batch.events.map(\.receivedAt))
        #expect(decoded.rejections.map(\.rejection) == batch.rejections.map(\.rejection))
        #expect(decoded.rejections.map(\.requestID) == ["r-1"])
        #expect(SpooledBatch.header(of: batch.encoded()[...])?.events == 3)
    }

    @Test("A truncated or foreign payload throws instead of trapping")
    func malformedPayloads() {
        let bytes = Self.sampleBatch().encoded()
        for cut in [0, 1, 9, 17, bytes.count / 2, bytes.count - 1] {
            #expect(throws: SpoolBinaryReader.Malformed.self) { try SpooledBatch(decoding: bytes[..<cut]) }
        }
        var future = bytes
        future[0] = 99
        #expect(throws: SpoolBinaryReader.Malformed.self) { try SpooledBatch(decoding: future[...]) }
    }
}
