/// One broken rule of one event, before it is placed in a request as an ``EventRejection``.
struct ValidationFailure: Error, Equatable {
    var code: RejectionCode
    var message: String

    /// A required field is absent or `null`.
    static func missing(_ field: EventField, _ context: String = "") -> ValidationFailure {
        ValidationFailure(code: .missingField, message: "field \(quoted(field)) is required\(context)")
    }

    /// A field has the wrong JSON type.
    static func wrongType(_ field: EventField, expected: String, got value: JSONValue) -> ValidationFailure {
        ValidationFailure(
            code: .invalidType, message: "field \(quoted(field)) must be \(expected), got \(value.typeDescription)")
    }

    /// A field is not allowed on this event type.
    static func notAllowed(_ field: EventField, on type: EventType, _ reason: String) -> ValidationFailure {
        ValidationFailure(code: .notAllowed, message: "field \(quoted(field)) is not allowed on \(article(type)); \(reason)")
    }

    /// A field name in double quotes, as it appears on the wire.
    static func quoted(_ field: EventField) -> String {
        "\"\(field.rawValue)\""
    }

    /// A received string in double quotes with JSON escapes, cut short so a hostile value cannot
    /// bloat the response.
    static func quoted(_ value: String) -> String {
        let limit = 64
        let scalars = value.unicodeScalars
        guard scalars.count > limit else { return JSONValue.string(value).compactText }
        return JSONValue.string(String(String.UnicodeScalarView(scalars.prefix(limit)))).compactText + "…"
    }

    /// A received JSON number as shown in a message, cut short like ``quoted(_:)-swift.type.method`` strings: a
    /// number may have thousands of digits, and would otherwise be echoed whole.
    static func shownNumber(_ text: String) -> String {
        let limit = 64
        return text.count > limit ? text.prefix(limit) + "…" : text
    }

    /// "a click", "an impression": the event type with its article.
    static func article(_ type: EventType) -> String {
        type == .impression ? "an impression" : "a \(type.rawValue)"
    }
}
