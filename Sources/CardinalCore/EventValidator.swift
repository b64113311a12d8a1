public import Foundation

/// Checks one event against the rules of the ingest API and turns it into a typed ``Event``.
///
/// The first broken rule wins, in this order: unknown or repeated fields (a typo explains many later
/// failures), `id`, `type`, `channel`, `time`, identity, message source, then the remaining fields in the
/// order of the API's field table. `null` counts as absent; an empty string counts as missing for a
/// required field and is refused for an optional one.
public struct EventValidator: Sendable {
    /// The installation-specific bounds.
    public var policy: ValidationPolicy

    /// Creates a validator with the given bounds.
    public init(policy: ValidationPolicy = ValidationPolicy()) {
        self.policy = policy
    }

    /// Validates one event.
    ///
    /// - Parameters:
    ///   - value: The event as parsed JSON; anything but an object is rejected as `not_an_object`.
    ///   - index: The event's 0-based position in its request, copied into a rejection.
    ///   - now: When the request was received; `time` is checked against it.
    /// - Returns: The typed event, or the rejection with the event re-serialized compactly as evidence.
    public func validate(_ value: JSONValue, index: Int, now: Date) -> Result<Event, EventRejection> {
        check(value, window: TimeWindow(now: now, policy: policy)).mapError { failure in
            EventRejection(
                index: index, id: Self.rawID(of: value), code: failure.code, message: failure.message,
                rawJSON: value.compactText)
        }
    }

    /// Validates one event against a window computed once for its whole request.
    func check(_ value: JSONValue, window: TimeWindow) -> Result<Event, ValidationFailure> {
        guard case .object(let object) = value else {
            return .failure(ValidationFailure(
                code: .notAnObject, message: "an event must be a JSON object, got \(value.typeDescription)"))
        }
        switch RawEventFields.sort(object) {
        case .failure(.unknown(let name)):
            return .failure(Self.unknownField(name))
        case .failure(.duplicate(let field)):
            return .failure(ValidationFailure(
                code: .duplicateField, message: "field \(ValidationFailure.quoted(field)) is given more than once"))
        case .success(let fields):
            return Result { () throws(ValidationFailure) in try makeEvent(fields, window: window) }
        }
    }

    /// The `id` of an event as sent, if it is a string, for the `errors` of a response.
    static func rawID(of value: JSONValue) -> String? {
        guard case .object(let object) = value, case .string(let id)? = object["id"] else { return nil }
        return id
    }

    private static func unknownField(_ name: String) -> ValidationFailure {
        var message = "unknown field \(ValidationFailure.quoted(name))"
        if let suggestion = FieldNameSuggestion.closest(to: name, among: EventField.allCases.map(\.rawValue)) {
            message += "; did you mean \"\(suggestion)\"?"
        }
        return ValidationFailure(code: .unknownField, message: message)
    }

    private func makeEvent(_ fields: RawEventFields, window: TimeWindow) throws(ValidationFailure) -> Event {
        // No length limit of its own: anything but 36 characters fails as a UUID, with a clearer message.
        let idText = try fields.requiredString(.id, maxLength: .max)
        guard let id = UUIDText.parse(idText) else {
            throw ValidationFailure(
                code: .invalidUUID,
                message: "field \"id\" is \(ValidationFailure.quoted(idText)), not a UUID (8-4-4-4-12 hexadecimal digits)")
        }
        let type = try fields.requiredEnumeration(.type, as: EventType.self)
        let channel: Channel?
        if type.isAppLevel {
            if fields.present(.channel) != nil {
                throw .notAllowed(.channel, on: type, "\(ValidationFailure.article(type)) is not tied to a message surface")
            }
            channel = nil
        } else {
            channel = try fields.requiredEnumeration(
                .channel, as: Channel.self, context: " for \(ValidationFailure.article(type))")
        }
        try checkDelivery(type: type, channel: channel)

        let time = try window.eventTime(of: fields)

        let userID = try fields.string(.userID, maxLength: Limits.userIDMaxLength)
        let deviceID = try fields.string(.deviceID, maxLength: Limits.identifierMaxLength)
        guard userID != nil || deviceID != nil else {
            throw ValidationFailure(code: .missingField, message: "one of \"user_id\" or \"device_id\" is required")
        }
        let sessionID = try fields.string(.sessionID, maxLength: Limits.identifierMaxLength)
        let source = try messageSource(fields, type: type)
        let variantID = try fields.string(.variantID, maxLength: Limits.identifierMaxLength)
        let control = try controlFlag(fields, type: type)

        var event = Event(
            id: id, type: type, channel: channel, time: EpochTime.date(microseconds: time),
            userID: userID, deviceID: deviceID, sessionID: sessionID, source: source, variantID: variantID,
            control: control,
            messageID: try fields.string(.messageID, maxLength: Limits.identifierMaxLength),
            placementID: try fields.string(.placementID, maxLength: Limits.identifierMaxLength),
            buttonID: try fields.string(.buttonID, maxLength: Limits.identifierMaxLength),
            url: try fields.string(.url, maxLength: Limits.urlMaxLength),
            platform: try fields.enumeration(.platform, as: Platform.self),
            sdkVersion: try fields.string(.sdkVersion, maxLength: Limits.versionMaxLength),
            appVersion: try fields.string(.appVersion, maxLength: Limits.versionMaxLength),
            osVersion: try fields.string(.osVersion, maxLength: Limits.versionMaxLength),
            test: try fields.bool(.test) ?? false)
        try readConversion(fields, type: type, into: &event)
        try checkSessionStart(event)
        event.propertiesJSON = try fields.propertiesJSON(maxBytes: policy.maxPropertiesBytes)
        try checkIndexEntrySize(of: event)
        return event
    }
}
