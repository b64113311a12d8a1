/// Renders help text and usage lines in swift-argument-parser's layout, wrapped at 80 columns.
///
/// ```
/// OVERVIEW: Create an ingest key and print it once.
///
/// USAGE: cardinal keys create --app <app> [--description <text>]
///
/// OPTIONS:
///   --app <app>             The app the key belongs to.
///   --description <text>    A note on what the key is for.
///   -h, --help              Show help information.
/// ```
///
/// Sections come in the order ARGUMENTS, OPTIONS (options, then flags, then `--version` when the
/// executable has a version, then `-h, --help`),
/// SUBCOMMANDS; an empty section is left out. Descriptions start at column 26; a label too long for
/// that column gets a line of its own.
public enum HelpRenderer {
    /// Where descriptions start in the ARGUMENTS, OPTIONS and SUBCOMMANDS sections (swift-argument-parser's).
    static let labelColumnWidth = 26
    /// More usage elements than this collapse into `[<options>]`, as in swift-argument-parser.
    static let maximumUsageElements = 12
    /// `USAGE: ` and `Usage: ` are both this wide, so one wrapped usage text fits both.
    static let usagePrefixWidth = "Usage: ".count

    /// Renders the complete help text of a command.
    ///
    /// - Parameters:
    ///   - spec: The command to describe.
    ///   - path: Its full path from the executable's name, ending with `spec.name`.
    ///   - listsVersionFlag: Whether to list `--version`: pass `true` when the root has a
    ///     ``CommandSpec/version``, for every command of its tree, as the parser does.
    /// - Returns: The help text, ending with a newline, for writing to stdout as it is.
    public static func render(_ spec: CommandSpec, path: [String], listsVersionFlag: Bool = false) -> String {
        precondition(path.last == spec.name, "help path \(path) does not end with '\(spec.name)'")
        var blocks: [String] = []
        if !spec.abstract.isEmpty {
            blocks.append(TextWrapper.wrap("OVERVIEW: \(spec.abstract)").joined(separator: "\n"))
        }
        if let discussion = spec.discussion, !discussion.isEmpty {
            blocks.append(TextWrapper.wrap(discussion).joined(separator: "\n"))
        }
        blocks.append("USAGE: \(usage(spec, path: path))")
        blocks.append(contentsOf: sections(of: spec, listsVersionFlag: listsVersionFlag))
        if spec.isGroup {
            var helpPath = path
            helpPath.insert("help", at: 1)
            blocks.append("  See '\(helpPath.joined(separator: " ")) <subcommand>' for detailed help.")
        }
        return blocks.joined(separator: "\n\n") + "\n"
    }

    /// Renders a command's usage synopsis, without the `USAGE: ` prefix.
    ///
    /// Options come first (required ones bare, others in brackets), then flags, then positional
    /// arguments; a group shows `<subcommand>`. Lines longer than 80 columns, counting the 7-column
    /// prefix, continue below the first option.
    ///
    /// - Parameters:
    ///   - spec: The command.
    ///   - path: Its full path from the executable's name, ending with `spec.name`.
    /// - Returns: One or more lines joined by newlines, without a final newline.
    public static func usage(_ spec: CommandSpec, path: [String]) -> String {
        let command = path.joined(separator: " ")
        var elements = spec.isGroup
            ? ["<subcommand>"]
            : spec.options.map(\.synopsis) + spec.flags.map(\.synopsis) + spec.arguments.map(\.synopsis)
        if elements.count > maximumUsageElements {
            let essential = spec.options.filter { !$0.isOptionalInUsage }.map(\.synopsis)
                + spec.arguments.map(\.synopsis)
            elements = essential.isEmpty || essential.count > maximumUsageElements
                ? ["<options>"]
                : ["[<options>]"] + essential
        }
        guard !elements.isEmpty else { return command }
        let indent = usagePrefixWidth + command.count + 1
        let lines = TextWrapper.pack(elements, width: TextWrapper.screenWidth, leading: indent, indent: indent)
        return command + " " + lines.joined(separator: "\n")
    }

    /// The ARGUMENTS, OPTIONS and SUBCOMMANDS sections that have something in them.
    private static func sections(of spec: CommandSpec, listsVersionFlag: Bool) -> [String] {
        let arguments = spec.arguments.map { row($0.label, $0.help) }
        let options = spec.options.map { row($0.label, $0.help, $0.annotations) }
            + spec.flags.map { row($0.label, $0.help, $0.annotations) }
            + (listsVersionFlag ? [row(ArgumentScanner.versionFlag, "Show the version.")] : [])
            + [row("-h, --help", "Show help information.")]
        let subcommands = spec.subcommands.map { row($0.name, $0.abstract) }
        return [("ARGUMENTS", arguments), ("OPTIONS", options), ("SUBCOMMANDS", subcommands)]
            .filter { !$0.1.isEmpty }
            .map { header, rows in ([header + ":"] + rows).joined(separator: "\n") }
    }

    /// One row of a section: the label indented by two, the text from column 26 on.
    ///
    /// Each annotation, such as `(env: CARDINAL_DATABASE_URL)`, wraps as one unit so that it never
    /// breaks between its parts.
    private static func row(_ label: String, _ text: String, _ annotations: [String] = []) -> String {
        let paddedLabel = "  " + label
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init) + annotations
        guard !words.isEmpty else { return paddedLabel }
        let column = labelColumnWidth
        let lines = TextWrapper.pack(words, width: TextWrapper.screenWidth, leading: column, indent: column)
        guard paddedLabel.count < column else {
            return paddedLabel + "\n" + String(repeating: " ", count: column) + lines.joined(separator: "\n")
        }
        let padding = String(repeating: " ", count: column - paddedLabel.count)
        return paddedLabel + padding + lines.joined(separator: "\n")
    }
}
