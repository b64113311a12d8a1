/// Greedy word wrapping for help text and usage lines, at a fixed width.
///
/// swift-argument-parser wraps at the terminal's width; we wrap at 80 columns always, so help is the
/// same in a terminal, a pipe, a man page and a snapshot test.
enum TextWrapper {
    /// The width every line of help and usage text fits in, when no single word is wider.
    static let screenWidth = 80

    /// Wraps text that may hold several lines; each line keeps its leading spaces as the indent of
    /// its wrapped continuation, so indented lists stay indented. Empty lines are kept.
    ///
    /// - Parameters:
    ///   - text: The text to wrap.
    ///   - width: The widest a line may be.
    /// - Returns: The lines, without line breaks.
    static func wrap(_ text: String, width: Int = screenWidth) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line -> [String] in
            let indent = line.prefix { $0 == " " }.count
            let words = line.split(separator: " ").map(String.init)
            guard !words.isEmpty else { return [""] }
            let packed = pack(words, width: width, leading: indent, indent: indent)
            return [String(repeating: " ", count: indent) + packed[0]] + packed.dropFirst()
        }
    }

    /// Packs words into lines separated by single spaces, each no wider than `width`.
    ///
    /// The first line is meant to follow `leading` columns that the caller prints before it and is
    /// returned without them; later lines start with `indent` spaces. A word too wide for any line
    /// gets a line of its own rather than being split, so option names and URLs stay whole.
    ///
    /// - Parameters:
    ///   - words: The words, which may themselves contain spaces (usage elements such as `[--app <app>]`).
    ///   - width: The widest a line may be, counting the leading columns and the indent.
    ///   - leading: Columns already used on the first line.
    ///   - indent: Spaces that start every later line.
    /// - Returns: At least one line.
    static func pack(_ words: [String], width: Int, leading: Int, indent: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        var used = leading
        for word in words {
            if current.isEmpty {
                current = word
                used += word.count
            } else if used + 1 + word.count <= width {
                current += " " + word
                used += 1 + word.count
            } else {
                lines.append(current)
                current = word
                used = indent + word.count
            }
        }
        lines.append(current)
        return lines.enumerated().map { index, line in
            index == 0 ? line : String(repeating: " ", count: indent) + line
        }
    }
}
