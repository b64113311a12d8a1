public import Foundation

/// Turns the body of `POST /v1/events` into validated events and per-event rejections.
///
/// Only a body that is not a batch at all throws (HTTP 400); a bad event is a rejection of that event
/// alone. Indexes are 0-based positions in the request: the element index in `{"events":[…]}`, or the
/// index among the non-blank lines of NDJSON (a blank line is not an event, so it takes no index).
/// A UTF-8 byte order mark at the start of the body is ignored.
public struct BatchDecoder: Sendable {
    /// The validator applied to every event.
    public var validator: EventValidator
    /// The most events a body may hold; decoding stops at the next one and throws
    /// ``BatchDecodingError/tooManyEvents(limit:)``, so that the work a body causes is bounded by the limit and
    /// not by how many events its bytes (or its gzip) can spell.
    public var maxEvents: Int

    /// Creates a decoder that validates with `policy` and accepts at most `maxEvents` events per body.
    public init(policy: ValidationPolicy = ValidationPolicy(), maxEvents: Int = .max) {
        validator = EventValidator(policy: policy)
        self.maxEvents = maxEvents
    }

    /// Decodes and validates a request body.
    ///
    /// - Parameters:
    ///   - body: The (already inflated) request body.
    ///   - format: The body format, from `Content-Type`.
    ///   - now: When the request was received; every event's `time` is checked against it.
    /// - Returns: The valid events and the rejections, each with its index in the request.
    /// - Throws: ``BatchDecodingError/notABatch(_:)`` when the body is empty, is not JSON (`.json`), or is
    ///   not exactly an object with one `events` array; ``BatchDecodingError/tooManyEvents(limit:)`` past
    ///   ``maxEvents``.
    public func decode(_ body: [UInt8], format: BatchFormat, receivedAt now: Date) throws(BatchDecodingError) -> DecodedBatch {
        try body.withUnsafeBufferPointer { buffer in
            Result { () throws(BatchDecodingError) in try decode(buffer: buffer, format: format, now: now) }
        }.get()
    }

    /// Decodes and validates a request body held in `Data`, as the byte-array overload does.
    public func decode(_ body: Data, format: BatchFormat, receivedAt now: Date) throws(BatchDecodingError) -> DecodedBatch {
        try body.withUnsafeBytes { raw in
            Result { () throws(BatchDecodingError) in
                try decode(buffer: raw.bindMemory(to: UInt8.self), format: format, now: now)
            }
        }.get()
    }

    private static let emptyBody = BatchDecodingError.notABatch(
        "the body is empty; send {\"events\":[…]} as application/json or one event per line as application/x-ndjson")

    private func decode(
        buffer: UnsafeBufferPointer<UInt8>, format: BatchFormat, now: Date
    ) throws(BatchDecodingError) -> DecodedBatch {
        let hasByteOrderMark = buffer.starts(with: [0xEF, 0xBB, 0xBF])
        let body = UnsafeBufferPointer(rebasing: buffer[(hasByteOrderMark ? 3 : 0)...])
        let window = TimeWindow(now: now, policy: validator.policy)
        switch format {
        case .json: return try decodeJSON(body, window: window)
        case .ndjson: return try decodeNDJSON(body, window: window)
        }
    }

    private func decodeJSON(_ body: UnsafeBufferPointer<UInt8>, window: TimeWindow) throws(BatchDecodingError) -> DecodedBatch {
        guard !body.allSatisfy(Self.isWhitespace) else { throw Self.emptyBody }
        var batch = DecodedBatch(events: [], rejections: [], count: 0)
        let document: JSONValue
        do {
            // Each event is validated as soon as it is parsed and its JSON let go, so a batch never exists as
            // one tree of parsed values.
            document = try JSONParser.parseDocument(
                body, streamingElementsOf: "events", maxValues: Limits.maxJSONValuesPerEvent
            ) { element in
                guard batch.count < maxEvents else { return false }
                append(validator.check(element, window: window), index: batch.count,
                       rawID: { EventValidator.rawID(of: element) }, raw: { element.compactText }, to: &batch)
                return true
            }
        } catch {
            if error.reason == JSONParser.stoppedReason { throw .tooManyEvents(limit: maxEvents) }
            throw .notABatch("the body is not valid JSON: \(error)")
        }
        try Self.checkShape(of: document)
        return batch
    }

    /// Adds one checked event to `batch`: as an event or, with its evidence, as a rejection.
    private func append(
        _ result: Result<Event, ValidationFailure>, index: Int, rawID: () -> String?, raw: () -> String,
        to batch: inout DecodedBatch
    ) {
        batch.count += 1
        switch result {
        case .success(let event):
            batch.events.append(IndexedEvent(index: index, event: event))
        case .failure(let failure):
            batch.rejections.append(EventRejection(
                index: index, id: rawID(), code: failure.code, message: failure.message, rawJSON: Self.evidence(raw())))
        }
    }

    /// `raw` cut to ``Limits/rejectedRawMaxBytes`` bytes, marked with `…` when it was cut.
    static func evidence(_ raw: String) -> String {
        guard raw.utf8.count > Limits.rejectedRawMaxBytes else { return raw }
        // A character cut in two becomes U+FFFD; "…" takes the last 3 bytes.
        return String(decoding: raw.utf8.prefix(Limits.rejectedRawMaxBytes - 3), as: UTF8.self) + "…"
    }

    /// Checks that a document whose `events` elements were streamed out is `{"events":[…]}`, or says why not.
    private static func checkShape(of document: JSONValue) throws(BatchDecodingError) {
        guard case .object(let object) = document else {
            throw .notABatch("the body must be a JSON object {\"events\":[…]}, got \(document.typeDescription)")
        }
        var events: JSONValue?
        for member in object.members {
            guard member.key == "events" else {
                var message = "unexpected top-level field \(ValidationFailure.quoted(member.key))"
                if EventField(rawValue: member.key) != nil {
                    message += "; the body looks like a single event: wrap it as {\"events\":[…]} "
                        + "or send it as application/x-ndjson"
                } else if let suggestion = FieldNameSuggestion.closest(to: member.key, among: ["events"]) {
                    message += "; did you mean \"\(suggestion)\"? The body must be {\"events\":[…]}"
                } else {
                    message += "; the body must be {\"events\":[…]}"
                }
                throw .notABatch(message)
            }
            guard events == nil else { throw .notABatch("the body has \"events\" more than once") }
            events = member.value
        }
        switch events {
        case nil:
            throw .notABatch("the body has no \"events\" array; send {\"events\":[…]}")
        case .array?:
            return
        case let other?:
            throw .notABatch("\"events\" must be an array, got \(other.typeDescription)")
        }
    }

    private func decodeNDJSON(_ body: UnsafeBufferPointer<UInt8>, window: TimeWindow) throws(BatchDecodingError) -> DecodedBatch {
        var batch = DecodedBatch(events: [], rejections: [], count: 0)
        var lineStart = 0
        var lineNumber = 0
        while lineStart < body.count {
            let newline = body[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? body.count
            lineNumber += 1
            var lineEnd = newline
            if lineEnd > lineStart, body[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            let line = UnsafeBufferPointer(rebasing: body[lineStart..<lineEnd])
            lineStart = newline + 1
            guard !line.allSatisfy(Self.isWhitespace) else { continue }

            guard batch.count < maxEvents else { throw .tooManyEvents(limit: maxEvents) }
            let result: Result<Event, ValidationFailure>
            var rawID: String?
            do {
                let value = try JSONParser.parseDocument(line, maxValues: Limits.maxJSONValuesPerEvent)
                rawID = EventValidator.rawID(of: value)
                result = validator.check(value, window: window)
            } catch {
                result = .failure(ValidationFailure(code: .invalidJSON, message: "line \(lineNumber) is not valid JSON: \(error)"))
            }
            append(result, index: batch.count, rawID: { rawID }, raw: {
                String(decoding: UnsafeBufferPointer(rebasing: line.prefix(Limits.rejectedRawMaxBytes + 4)), as: UTF8.self)
            }, to: &batch)
        }
        guard batch.count > 0 else { throw Self.emptyBody }
        return batch
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }
}
