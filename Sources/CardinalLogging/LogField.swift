/// One `key=value` pair of a log line. Keys are prefixed by area (`ingest.request_id`, `db.sqlstate`,
/// `http.status`) so that a reader or a query can tell where a value comes from.
public struct LogField: Hashable, Sendable {
    /// The key, such as `ingest.request_id`.
    public var key: String
    /// The value as text; the format quotes or escapes it.
    public var value: String

    /// Makes a field.
    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }

    /// The fields of a `["key": "value"]` literal, in the order written.
    static func list(_ pairs: KeyValuePairs<String, String>) -> [LogField] {
        pairs.map { LogField($0.key, $0.value) }
    }
}
