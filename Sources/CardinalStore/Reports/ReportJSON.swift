public import CardinalCore

/// How report values become JSON, for the report tables (through `jsonb_to_recordset`) and for the CLI's
/// `--format json` alike: numbers as JSON numbers, undefined values as `null`, never NaN or infinity.
public enum ReportJSON {
    /// A count.
    public static func integer(_ value: Int64?) -> JSONValue {
        value.map { .number(String($0)) } ?? .null
    }

    /// A count.
    public static func integer(_ value: Int?) -> JSONValue {
        integer(value.map(Int64.init))
    }

    /// A measurement: the shortest text that reads back as the same Double, without a needless `.0`;
    /// `null` for `nil`, NaN and infinities, which JSON cannot hold.
    public static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else {
            return .null
        }
        if value == value.rounded(), abs(value) < 1e15 {
            return .number(String(Int64(value)))
        }
        return .number(String(value))
    }

    /// A string, or `null`.
    public static func string(_ value: String?) -> JSONValue {
        value.map { .string($0) } ?? .null
    }

    /// A boolean, or `null`.
    public static func bool(_ value: Bool?) -> JSONValue {
        value.map { .bool($0) } ?? .null
    }

    /// An object of the given members, in order.
    public static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(members))
    }

    /// An object of the given members, in order.
    public static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members: members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}
