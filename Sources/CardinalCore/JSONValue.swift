/// A parsed JSON value that keeps what `JSONSerialization` loses: the exact text of numbers, the difference
/// between `true` and `1`, and the order of object members.
///
/// Exact numbers matter because a conversion `value` of `19.99` must stay 19.99 and an epoch-millisecond
/// `time` must be an integer as written; member order matters because rejected events are kept as evidence
/// and `properties` are stored as sent.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text (e.g. `"19.99"`, `"-1e3"`), already checked against the JSON grammar.
    case number(String)
    /// A string, escapes resolved.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object(JSONObject)

    /// The name of the JSON type ("a string", "an object", …), for messages about a wrong type.
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses one JSON text (RFC 8259), with surrounding whitespace, from UTF-8 bytes.
    ///
    /// Strict: no comments, no trailing commas, no lone surrogates, no invalid UTF-8, at most
    /// ``Limits/maxJSONDepth`` levels of nesting. Duplicate object keys are kept (see ``JSONObject``).
    /// - Throws: ``JSONParseError`` with the byte offset of the first problem.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try JSONParser.parseDocument(buffer) }
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in try JSONParser.parseDocument(buffer) }
        }
        return try parsed.get()
    }

    /// Parses one JSON text from a string, as the byte overload does.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// A JSON object: its members in the order received.
///
/// A JSON object may, by RFC 8259, repeat a name; the members keep every occurrence so that the validator can
/// reject an event whose meaning would depend on which one wins.
public struct JSONObject: Sendable, Equatable {
    /// One `"name": value` pair.
    public struct Member: Sendable, Equatable {
        /// The member name.
        public var key: String
        /// The member value.
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in the order received.
    public var members: [Member]

    /// Creates an object from its members.
    public init(members: [Member] = []) {
        self.members = members
    }

    /// Creates an object from name-value pairs, in order.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        members = pairs.map { Member(key: $0.key, value: $0.value) }
    }

    /// The value of the first member named `key`, or `nil` when there is none.
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }
}

/// Why a text is not valid JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 0-based byte offset of the problem in the parsed text.
    public var offset: Int
    /// What was wrong, e.g. `expected ':' after an object key`.
    public var reason: String

    /// Creates a parse error.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// `invalid JSON at byte <offset>: <reason>`.
    public var description: String {
        "invalid JSON at byte \(offset): \(reason)"
    }
}
