/// Finds the declared name a mistyped option or subcommand most likely meant, for "Did you mean …?".
///
/// swift-argument-parser suggests any long name within three edits. Short names made that too eager
/// (`cardinal x` would suggest `run`), so a candidate here must be within a third of its own length
/// in edits (at least one), and swapping two neighbouring letters counts as one edit, which makes
/// `craete` suggest `create`.
enum NameSuggester {
    /// The candidate closest to `input`, if any is close enough; on a tie, the first in `candidates`.
    ///
    /// - Parameters:
    ///   - input: What the user typed, without leading dashes.
    ///   - candidates: The declared names, without leading dashes.
    /// - Returns: The suggestion, or `nil` if nothing is close.
    static func suggestion(for input: String, among candidates: [String]) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != input {
            let distance = editDistance(input, candidate)
            guard distance <= max(1, candidate.count / 3) else { continue }
            if distance < best?.distance ?? Int.max {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and transpositions
    /// of neighbouring characters, each costing one.
    ///
    /// - Parameters:
    ///   - lhs: One string.
    ///   - rhs: The other string.
    /// - Returns: The number of edits that turn one into the other.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs), b = Array(rhs)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // Rows i-2, i-1 and i of the dynamic-programming table; transpositions look two rows back.
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
