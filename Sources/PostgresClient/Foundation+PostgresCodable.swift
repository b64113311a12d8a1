// Text-format conformances for Foundation value types (Date has its own file). PostgreSQL's output for these
// types is documented in https://www.postgresql.org/docs/15/datatype.html.
public import Foundation

extension Decimal: PostgresEncodable, PostgresDecodable {
    /// The plain decimal digits (`-12.345`), or `NaN`, as `numeric` reads them.
    public var postgresText: String { description }

    /// Parses `numeric` output.
    ///
    /// - Throws: ``PostgresDecodingFailure`` for `Infinity` (Decimal has none) and for values with more than
    ///   38 significant digits, which Decimal cannot hold exactly.
    public init(postgresText: String) throws {
        if postgresText == "NaN" {
            self = .nan
            return
        }
        let allowed = Set("0123456789.-+eE")
        guard !postgresText.isEmpty, postgresText.allSatisfy(allowed.contains),
              let value = Decimal(string: postgresText, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw PostgresDecodingFailure.invalid(postgresText, expected: "a finite decimal number")
        }
        let mantissa = postgresText.prefix { $0 != "e" && $0 != "E" }.filter(\.isNumber)
        let significant = mantissa.drop { $0 == "0" }.reversed().drop { $0 == "0" }
        guard significant.count <= 38 else {
            throw PostgresDecodingFailure.invalid(postgresText, expected: "a number of at most 38 significant digits")
        }
        self = value
    }
}

extension UUID: PostgresEncodable, PostgresDecodable {
    /// The lower-case hyphenated form, as `uuid` prints.
    public var postgresText: String { UUIDHexText.format(self) }

    /// Parses the hyphenated form.
    public init(postgresText: String) throws {
        guard let uuid = UUIDHexText.parse(postgresText) else {
            throw PostgresDecodingFailure.invalid(postgresText, expected: "a UUID")
        }
        self = uuid
    }
}

extension Data: PostgresEncodable, PostgresDecodable {
    /// The bytes in `bytea` hex format (`\x0aff…`).
    public var postgresText: String { ByteaText.encode(self) }

    /// Parses `bytea` hex format, the server's default `bytea_output`.
    public init(postgresText: String) throws {
        self = Data(try ByteaText.decode(postgresText))
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    /// The bytes in `bytea` hex format (`\x0aff…`).
    public var postgresText: String { ByteaText.encode(self) }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// Parses `bytea` hex format, the server's default `bytea_output`.
    public init(postgresText: String) throws {
        self = try ByteaText.decode(postgresText)
    }
}
