import CardinalCore
import CardinalStore
import Foundation

/// One batch as the spool keeps it: the events and rejections the database could not take, and when they were
/// spooled. The payload of one spool record (`SpoolSegmentFormat`).
struct SpooledBatch: Sendable {
    /// Format of the payload; a reader refuses any other, so a downgrade cannot misread newer records.
    static let version: UInt8 = 1

    var spooledAt: Date
    var events: [EventRecord]
    var rejections: [RejectionRecord]

    /// The payload bytes.
    func encoded() -> [UInt8] {
        var writer = SpoolBinaryWriter()
        writer.uint8(Self.version)
        writer.date(spooledAt)
        writer.uint64(UInt64(events.count))
        for record in events {
            Self.encode(record, into: &writer)
        }
        writer.uint64(UInt64(rejections.count))
        for record in rejections {
            writer.int64(record.appID)
            writer.string(record.requestID)
            writer.date(record.receivedAt)
            writer.int64(Int64(record.rejection.index))
            writer.optionalString(record.rejection.id)
            writer.string(record.rejection.code.rawValue)
            writer.string(record.rejection.message)
            writer.string(record.rejection.rawJSON)
        }
        return writer.bytes
    }

    /// Decodes a payload.
    /// - Throws: `SpoolBinaryReader.Malformed` when it is not one `encoded()` made.
    init(decoding payload: ArraySlice<UInt8>) throws(SpoolBinaryReader.Malformed) {
        var reader = SpoolBinaryReader(payload)
        let version = try reader.uint8()
        guard version == Self.version else {
            throw .init(description: "spool record version \(version); this cardinald reads \(Self.version)")
        }
        spooledAt = try reader.date()
        let eventCount = try reader.uint64()
        events = []
        for _ in 0..<min(eventCount, UInt64(payload.count)) {
            events.append(try Self.decodeEvent(&reader))
        }
        let rejectionCount = try reader.uint64()
        rejections = []
        for _ in 0..<min(rejectionCount, UInt64(payload.count)) {
            rejections.append(RejectionRecord(
                appID: try reader.int64(), requestID: try reader.string(), receivedAt: try reader.date(),
                rejection: EventRejection(
                    index: Int(try reader.int64()), id: try reader.optionalString(),
                    code: try reader.value(RejectionCode.self), message: try reader.string(), rawJSON: try reader.string()
                )
            ))
        }
        guard reader.isAtEnd, events.count == eventCount, rejections.count == rejectionCount else {
            throw .init(description: "spool record has bytes or counts that do not add up")
        }
    }

    init(spooledAt: Date, events: [EventRecord], rejections: [RejectionRecord]) {
        self.spooledAt = spooledAt
        self.events = events
        self.rejections = rejections
    }

    private static func encode(_ record: EventRecord, into writer: inout SpoolBinaryWriter) {
        let event = record.event
        writer.int64(record.appID)
        writer.date(record.receivedAt)
        writer.uuid(event.id)
        writer.string(event.type.rawValue)
        writer.optionalString(event.channel?.rawValue)
        writer.date(event.time)
        writer.optionalString(event.userID)
        writer.optionalString(event.deviceID)
        writer.optionalString(event.sessionID)
        switch event.source {
        case nil:
            writer.uint8(0)
        case let .campaign(id):
            writer.uint8(1)
            writer.string(id)
        case let .canvas(id, stepID):
            writer.uint8(2)
            writer.string(id)
            writer.string(stepID)
        }
        writer.optionalString(event.variantID)
        writer.bool(event.control)
        writer.optionalString(event.messageID)
        writer.optionalString(event.placementID)
        writer.optionalString(event.buttonID)
        writer.optionalString(event.url)
        writer.optionalString(event.platform?.rawValue)
        writer.optionalString(event.sdkVersion)
        writer.optionalString(event.appVersion)
        writer.optionalString(event.osVersion)
        writer.bool(event.test)
        writer.optionalString(event.conversionName)
        writer.optionalString(event.valueText)
        writer.optionalString(event.currency)
        writer.optionalString(event.propertiesJSON)
    }

    private static func decodeEvent(_ reader: inout SpoolBinaryReader) throws(SpoolBinaryReader.Malformed) -> EventRecord {
        let appID = try reader.int64()
        let receivedAt = try reader.date()
        let id = try reader.uuid()
        let type = try reader.value(EventType.self)
        let channel = try reader.optionalString().map { text throws(SpoolBinaryReader.Malformed) in
            guard let channel = Channel(rawValue: text) else { throw .init(description: "channel '\(text)'") }
            return channel
        }
        let time = try reader.date()
        let (userID, deviceID, sessionID) = (try reader.optionalString(), try reader.optionalString(), try reader.optionalString())
        let source: MessageSource? = switch try reader.uint8() {
        case 0: nil
        case 1: .campaign(try reader.string())
        case 2: .canvas(id: try reader.string(), stepID: try reader.string())
        case let tag: throw .init(description: "message source tag \(tag)")
        }
        var event = Event(id: id, type: type, channel: channel, time: time, userID: userID, deviceID: deviceID,
                          sessionID: sessionID, source: source)
        event.variantID = try reader.optionalString()
        event.control = try reader.bool()
        event.messageID = try reader.optionalString()
        event.placementID = try reader.optionalString()
        event.buttonID = try reader.optionalString()
        event.url = try reader.optionalString()
        event.platform = try reader.optionalString().map { text throws(SpoolBinaryReader.Malformed) in
            guard let platform = Platform(rawValue: text) else { throw .init(description: "platform '\(text)'") }
            return platform
        }
        event.sdkVersion = try reader.optionalString()
        event.appVersion = try reader.optionalString()
        event.osVersion = try reader.optionalString()
        event.test = try reader.bool()
        event.conversionName = try reader.optionalString()
        event.value = try reader.optionalString().map { text throws(SpoolBinaryReader.Malformed) in
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw .init(description: "value '\(text)'")
            }
            return value
        }
        event.currency = try reader.optionalString()
        event.propertiesJSON = try reader.optionalString()
        return EventRecord(appID: appID, event: event, receivedAt: receivedAt)
    }
}

extension SpooledBatch {
    /// When a payload was spooled and how many events it holds, read from its first bytes without decoding
    /// the rest; `nil` when they make no sense.
    static func header(of payload: ArraySlice<UInt8>) -> (spooledAt: Date, events: Int)? {
        var reader = SpoolBinaryReader(payload)
        guard (try? reader.uint8()) == version, let spooledAt = try? reader.date(), let events = try? reader.uint64(),
              events <= UInt64(payload.count)
        else {
            return nil
        }
        return (spooledAt, Int(events))
    }
}
