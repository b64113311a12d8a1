import CardinalCore

/// The expected share of users per arm of a campaign, for the sample ratio mismatch check: relative weights
/// by arm, `control` for the control group and variant ids for the others (`campaign_settings.expected_split`).
public struct ExpectedSplit: Sendable, Equatable, CustomStringConvertible {
    /// One arm and its weight.
    public struct Arm: Sendable, Equatable {
        /// `control`, or a variant id.
        public var name: String
        /// A positive, finite weight.
        public var weight: Double

        /// Creates an arm.
        public init(name: String, weight: Double) {
            self.name = name
            self.weight = weight
        }
    }

    /// The arm name of the control group.
    public static let controlArm = "control"
    /// Up to 8 variants and the control (DOMAIN.md).
    public static let maximumArms = 9

    /// The arms in the order given.
    public let arms: [Arm]

    /// A split of `arms`.
    /// - Throws: ``CampaignSettingsError/invalidSplit(_:reason:)`` without arms, with more than 9, with a name
    ///   twice or empty, or with a weight that is not positive and finite.
    public init(arms: [Arm]) throws(CampaignSettingsError) {
        let text = arms.map { "\($0.name)=\($0.weight)" }.joined(separator: ",")
        guard (1...Self.maximumArms).contains(arms.count) else {
            throw .invalidSplit(text, reason: "give 1 to \(Self.maximumArms) arms (up to 8 variants and control)")
        }
        guard Set(arms.map(\.name)).count == arms.count else {
            throw .invalidSplit(text, reason: "an arm is named twice")
        }
        for arm in arms {
            guard !arm.name.isEmpty, arm.name.unicodeScalars.count <= 255 else {
                throw .invalidSplit(text, reason: "arm names are 1 to 255 characters")
            }
            guard arm.weight.isFinite, arm.weight > 0 else {
                throw .invalidSplit(text, reason: "weights must be positive numbers")
            }
        }
        self.arms = arms
    }

    /// Parses the CLI form `control=1,v1=1,v2=2`: arm names and weights (decimal numbers), comma-separated.
    /// - Throws: ``CampaignSettingsError/invalidSplit(_:reason:)`` for any other text or an invalid split.
    public init(parsing text: String) throws(CampaignSettingsError) {
        var arms: [Arm] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", omittingEmptySubsequences: false)
            guard pieces.count == 2 else {
                throw .invalidSplit(text, reason: "write arm=weight pairs separated by commas, e.g. control=1,v1=1")
            }
            let name = pieces[0].trimmingSpaces
            guard let weight = Double(pieces[1].trimmingSpaces), weight.isFinite else {
                throw .invalidSplit(text, reason: "\"\(pieces[1])\" is not a number")
            }
            arms.append(Arm(name: name, weight: weight))
        }
        do {
            try self.init(arms: arms)
        } catch {
            throw .invalidSplit(text, reason: error.reason)
        }
    }

    /// Reads the stored `jsonb` object. PostgreSQL keeps no key order, so the arms come back control first,
    /// then by name.
    /// - Throws: ``CampaignSettingsError/invalidSplit(_:reason:)`` when it is not an object of positive numbers.
    public init(jsonText: String) throws(CampaignSettingsError) {
        guard case .object(let object) = try? JSONValue.parse(jsonText) else {
            throw .invalidSplit(jsonText, reason: "not a JSON object")
        }
        var arms: [Arm] = []
        for member in object.members {
            guard case .number(let number) = member.value, let weight = Double(number) else {
                throw .invalidSplit(jsonText, reason: "the weight of \(member.key) is not a number")
            }
            arms.append(Arm(name: member.key, weight: weight))
        }
        let controlFirst = arms.sorted {
            ($0.name == Self.controlArm ? 0 : 1, $0.name) < ($1.name == Self.controlArm ? 0 : 1, $1.name)
        }
        try self.init(arms: controlFirst)
    }

    /// The weight of the arm named `name`, or `nil` when the split does not name it.
    public func weight(of name: String) -> Double? {
        arms.first { $0.name == name }?.weight
    }

    /// The CLI form, `control=1,v1=1`.
    public var description: String {
        arms.map { "\($0.name)=\(Self.format($0.weight))" }.joined(separator: ",")
    }

    /// The JSON object stored in `campaign_settings.expected_split`.
    public var jsonText: String {
        JSONValue.object(JSONObject(members: arms.map {
            JSONObject.Member(key: $0.name, value: .number(Self.format($0.weight)))
        })).compactText
    }

    /// A weight without a needless `.0`.
    private static func format(_ weight: Double) -> String {
        weight == weight.rounded() && abs(weight) < 1e15 ? String(Int64(weight)) : String(weight)
    }
}

extension Substring {
    /// The text without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
