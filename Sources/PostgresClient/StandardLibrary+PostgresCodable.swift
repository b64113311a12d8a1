// Text-format conformances for standard-library types. PostgreSQL's output for these types is documented in
// https://www.postgresql.org/docs/15/datatype.html.

extension String: PostgresEncodable, PostgresDecodable {
    /// The string itself.
    public var postgresText: String { self }

    /// The text itself.
    public init(postgresText: String) {
        self = postgresText
    }
}

extension Bool: PostgresEncodable, PostgresDecodable {
    /// `t` or `f`, as PostgreSQL prints booleans.
    public var postgresText: String { self ? "t" : "f" }

    /// Accepts `t`/`f` (PostgreSQL's output) and `true`/`false`.
    public init(postgresText: String) throws {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw PostgresDecodingFailure.invalid(postgresText, expected: "a boolean (t or f)")
        }
    }
}

extension Int: PostgresEncodable, PostgresDecodable {
    /// The decimal digits.
    public var postgresText: String { String(self) }

    /// Parses decimal digits, as `bigint`, `integer` and `smallint` print.
    public init(postgresText: String) throws {
        self = try parseInteger(postgresText)
    }
}

extension Int64: PostgresEncodable, PostgresDecodable {
    /// The decimal digits.
    public var postgresText: String { String(self) }

    /// Parses decimal digits, as `bigint` prints.
    public init(postgresText: String) throws {
        self = try parseInteger(postgresText)
    }
}

extension Int32: PostgresEncodable, PostgresDecodable {
    /// The decimal digits.
    public var postgresText: String { String(self) }

    /// Parses decimal digits, as `integer` prints.
    public init(postgresText: String) throws {
        self = try parseInteger(postgresText)
    }
}

extension Int16: PostgresEncodable, PostgresDecodable {
    /// The decimal digits.
    public var postgresText: String { String(self) }

    /// Parses decimal digits, as `smallint` prints.
    public init(postgresText: String) throws {
        self = try parseInteger(postgresText)
    }
}

extension Double: PostgresEncodable, PostgresDecodable {
    /// The shortest text that reads back as the same value; `inf`, `-inf` and `nan` are accepted by PostgreSQL.
    public var postgresText: String { description }

    /// Parses `double precision` output, including `Infinity`, `-Infinity` and `NaN`.
    public init(postgresText: String) throws {
        guard let value = Double(postgresText) else {
            throw PostgresDecodingFailure.invalid(postgresText, expected: "a floating-point number")
        }
        self = value
    }
}

extension Float: PostgresEncodable, PostgresDecodable {
    /// The shortest text that reads back as the same value; `inf`, `-inf` and `nan` are accepted by PostgreSQL.
    public var postgresText: String { description }

    /// Parses `real` output, including `Infinity`, `-Infinity` and `NaN`.
    public init(postgresText: String) throws {
        guard let value = Float(postgresText) else {
            throw PostgresDecodingFailure.invalid(postgresText, expected: "a floating-point number")
        }
        self = value
    }
}

/// Parses an integer in `T`'s range, so that an out-of-range value fails instead of wrapping.
private func parseInteger<T: FixedWidthInteger>(_ text: String) throws -> T {
    guard let value = T(text, radix: 10) else {
        throw PostgresDecodingFailure.invalid(text, expected: "an integer in \(T.self)'s range")
    }
    return value
}
