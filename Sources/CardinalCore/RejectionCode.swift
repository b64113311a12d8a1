/// Why an event was rejected: the machine-readable `code` of an entry in the `errors` of an ingest response.
///
/// Codes are part of the API contract (clients branch on them, metrics count by them); the human
/// `message` of ``EventRejection`` says which field broke which rule.
public enum RejectionCode: String, Sendable, CaseIterable {
    /// A required field is absent, `null` or an empty string.
    case missingField = "missing_field"
    /// `id` is not a UUID in its 8-4-4-4-12 hexadecimal form.
    case invalidUUID = "invalid_uuid"
    /// A field has the wrong JSON type, e.g. `"control": "true"` instead of `true`.
    case invalidType = "invalid_type"
    /// A field has the right JSON type but a value outside its rule (unknown enum value, bad currency, …).
    case invalidValue = "invalid_value"
    /// `time` is more than the allowed skew (24 h by default) after the time the request was received.
    case timeInFuture = "time_in_future"
    /// `time` is older than the retention window: its partition would already have been dropped.
    case timeTooOld = "time_too_old"
    /// `time` is neither an RFC 3339 timestamp nor an integer of epoch milliseconds.
    case invalidTime = "invalid_time"
    /// The event has a top-level field the API does not know (often a typo: the message suggests a name).
    case unknownField = "unknown_field"
    /// The event has the same top-level field twice; which value was meant is ambiguous.
    case duplicateField = "duplicate_field"
    /// A string field is longer than its limit (counted in Unicode scalars).
    case tooLong = "too_long"
    /// A click or dismissal claims to be on control: control users are never shown the message.
    case controlInteraction = "control_interaction"
    /// Both a campaign and a canvas are given as the message source.
    case conflictingSource = "conflicting_source"
    /// A field is not allowed for this event type, e.g. `channel` on a conversion or `name` on a click.
    case notAllowed = "not_allowed"
    /// `properties` serializes to more bytes than the limit (16 KiB by default).
    case propertiesTooLarge = "properties_too_large"
    /// The event (a batch element or an NDJSON line) is valid JSON but not a JSON object.
    case notAnObject = "not_an_object"
    /// The NDJSON line is not valid JSON.
    case invalidJSON = "invalid_json"
    /// The event passed validation but PostgreSQL refused to store it (a rule validation does not know yet);
    /// it is kept with the rejections and the rest of the request is stored. The message names the SQLSTATE
    /// and, for a constraint, its name.
    case databaseRefused = "database_refused"
}
