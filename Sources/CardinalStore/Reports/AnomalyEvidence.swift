public import CardinalCore

/// The numbers behind an anomaly finding, by name, in a stable order.
public struct AnomalyEvidence: Sendable, Equatable {
    /// One named number; `nil` when it is undefined (e.g. an expectation with no finite value).
    public struct Item: Sendable, Equatable {
        /// The name, in snake_case.
        public var name: String
        /// The value.
        public var value: Double?

        /// Creates an item.
        public init(name: String, value: Double?) {
            self.name = name
            self.value = value
        }
    }

    /// The items in order.
    public var items: [Item]

    /// Creates evidence from items in the order they should be shown.
    public init(_ items: [Item]) {
        self.items = items
    }

    /// The value named `name`, or `nil` when it is absent or undefined.
    public subscript(name: String) -> Double? {
        items.first { $0.name == name }?.value
    }

    /// Reads the `evidence` jsonb of `cardinal.anomalies`: an object of numbers (or nulls). `jsonb` sorts keys
    /// by length, so they are put in alphabetical order for a stable reading.
    /// - Throws: ``ReportDecodingError`` when the text is not such an object.
    public init(jsonText: String) throws {
        guard case .object(let object) = try? JSONValue.parse(jsonText) else {
            throw ReportDecodingError(what: "anomaly evidence", value: jsonText, expected: "a JSON object")
        }
        items = try object.members.map { member in
            switch member.value {
            case .null:
                return Item(name: member.key, value: nil)
            case .number(let text):
                guard let value = Double(text) else {
                    throw ReportDecodingError(what: "anomaly evidence \(member.key)", value: text, expected: "a number")
                }
                return Item(name: member.key, value: value)
            default:
                throw ReportDecodingError(
                    what: "anomaly evidence \(member.key)", value: member.value.compactText, expected: "a number"
                )
            }
        }
        .sorted { $0.name < $1.name }
    }
}

extension AnomalyEvidence {
    /// The evidence as a JSON object of numbers (and nulls), in order.
    public var json: JSONValue {
        ReportJSON.object(items.map { ($0.name, ReportJSON.number($0.value)) })
    }
}
