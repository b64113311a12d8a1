/// Finds the known name a mistyped field name was probably meant to be, for "did you mean" messages.
enum FieldNameSuggestion {
    /// Names longer than this are not compared: the suggestion would be noise and the distance costly.
    private static let maxComparedLength = 40
    /// The largest edit distance still worth suggesting.
    private static let maxDistance = 2

    /// The candidate closest to `name`, if one is within edit distance 2 after `camelCase` is rewritten
    /// to `snake_case` and letters are lower-cased (so `campaignId` and `User_ID` find their field);
    /// ties go to the earlier candidate.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let normalized = Array(snakeCased(name).unicodeScalars)
        guard normalized.count <= maxComparedLength else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(normalized, Array(candidate.unicodeScalars))
            if distance <= maxDistance, distance < best?.distance ?? .max {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `campaignID` → `campaign_id`, `userId` → `user_id`: an underscore before an upper-case letter that
    /// follows a lower-case letter or digit, then everything lower-cased.
    static func snakeCased(_ name: String) -> String {
        var result = ""
        var previousIsLowerOrDigit = false
        for scalar in name.unicodeScalars {
            let isUpper = scalar.properties.isUppercase
            if isUpper && previousIsLowerOrDigit { result.append("_") }
            result.unicodeScalars.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            previousIsLowerOrDigit = scalar.properties.isLowercase || ("0"..."9").contains(scalar)
        }
        return result
    }

    /// The Levenshtein distance (insertions, deletions, substitutions) between two scalar sequences.
    static func editDistance(_ source: [Unicode.Scalar], _ target: [Unicode.Scalar]) -> Int {
        guard !source.isEmpty else { return target.count }
        guard !target.isEmpty else { return source.count }
        var previous = Array(0...target.count)
        var current = [Int](repeating: 0, count: target.count + 1)
        for (i, sourceScalar) in source.enumerated() {
            current[0] = i + 1
            for (j, targetScalar) in target.enumerated() {
                let substitution = previous[j] + (sourceScalar == targetScalar ? 0 : 1)
                current[j + 1] = min(substitution, previous[j + 1] + 1, current[j] + 1)
            }
            swap(&previous, &current)
        }
        return previous[target.count]
    }
}
