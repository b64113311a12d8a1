/// Typed reads of raw fields: each either returns the value or throws the failure that names the field
/// and the broken rule. A `null` member reads as absent, as most JSON encoders write `nil` that way.
extension RawEventFields {
    /// The value of `field` unless it is absent or `null`.
    func present(_ field: EventField) -> JSONValue? {
        switch self[field] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    /// An optional string: absent or `null` is `nil`; empty, too long or holding NUL is rejected.
    func string(_ field: EventField, maxLength: Int) throws(ValidationFailure) -> String? {
        guard let value = present(field) else { return nil }
        guard case .string(let string) = value else { throw .wrongType(field, expected: "a string", got: value) }
        guard !string.isEmpty else {
            throw ValidationFailure(
                code: .invalidValue, message: "field \(ValidationFailure.quoted(field)) is empty; omit it or give a value")
        }
        // The UTF-8 length bounds the scalar count from above, so most strings need no counting.
        if string.utf8.count > maxLength {
            let length = string.unicodeScalars.count
            if length > maxLength {
                throw ValidationFailure(
                    code: .tooLong,
                    message: "field \(ValidationFailure.quoted(field)) is \(length) characters; the limit is \(maxLength)")
            }
        }
        if string.containsNUL {
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \(ValidationFailure.quoted(field)) contains a NUL character (\\u0000), which cannot be stored")
        }
        return string
    }

    /// A required string: absent, `null` or empty is `missing_field`; otherwise as ``string(_:maxLength:)``.
    func requiredString(_ field: EventField, maxLength: Int, context: String = "") throws(ValidationFailure) -> String {
        guard let value = present(field) else { throw .missing(field, context) }
        if case .string("") = value {
            throw ValidationFailure(
                code: .missingField, message: "field \(ValidationFailure.quoted(field)) is empty; it is required\(context)")
        }
        // Present and not empty, so the optional read returns a value or throws.
        return try string(field, maxLength: maxLength)!
    }

    /// An optional boolean; any other JSON type (the string `"true"`, the number `1`) is `invalid_type`.
    func bool(_ field: EventField) throws(ValidationFailure) -> Bool? {
        guard let value = present(field) else { return nil }
        guard case .bool(let flag) = value else { throw .wrongType(field, expected: "true or false", got: value) }
        return flag
    }

    /// An optional string from a closed set, e.g. `platform`; matched exactly (case-sensitive). A value
    /// outside the set is `invalid_value` whatever its length.
    func enumeration<Value: RawRepresentable & CaseIterable>(
        _ field: EventField, as _: Value.Type
    ) throws(ValidationFailure) -> Value? where Value.RawValue == String {
        guard let string = try string(field, maxLength: .max) else { return nil }
        return try Self.member(string, of: field, as: Value.self)
    }

    /// A required string from a closed set, e.g. `type`.
    func requiredEnumeration<Value: RawRepresentable & CaseIterable>(
        _ field: EventField, as _: Value.Type, context: String = ""
    ) throws(ValidationFailure) -> Value where Value.RawValue == String {
        let string = try requiredString(field, maxLength: .max, context: context)
        return try Self.member(string, of: field, as: Value.self)
    }

    private static func member<Value: RawRepresentable & CaseIterable>(
        _ string: String, of field: EventField, as _: Value.Type
    ) throws(ValidationFailure) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: string) else {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationFailure(
                code: .invalidValue,
                message: "field \(ValidationFailure.quoted(field)) is \(ValidationFailure.quoted(string)); expected one of \(allowed)")
        }
        return value
    }
}
