public import Foundation

/// A `json` or `jsonb` value as its JSON text.
///
/// `jsonb` values come back normalized (keys sorted by length then bytes, whitespace changed), so compare them
/// by decoding, not by text. See [JSON Types](https://www.postgresql.org/docs/15/datatype-json.html).
public struct PostgresJSON: PostgresEncodable, PostgresDecodable, Hashable {
    /// The JSON text.
    public let text: String

    /// Wraps JSON text; the server validates it when the parameter is cast to `json` or `jsonb`.
    public init(text: String) {
        self.text = text
    }

    /// Encodes `value` to JSON.
    ///
    /// - Throws: what `encoder` throws.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes the JSON text as `type`.
    ///
    /// - Throws: what `decoder` throws.
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(type, from: Data(text.utf8))
    }

    /// The JSON text.
    public var postgresText: String { text }

    /// Wraps the server's JSON text.
    public init(postgresText: String) {
        text = postgresText
    }
}
