/// Walks a command line token by token: descends into subcommands and collects option values, flags
/// and positional words for the command reached. ``CommandLineParser`` drives it; the checks that
/// need the whole line (required values, extra arguments, environment, defaults) are in
/// `ArgumentScanner+Resolution.swift`.
struct ArgumentScanner {
    /// The tokens not yet read.
    private var tokens: ArraySlice<String>
    /// Whether `-h` or `--help` appears before `--`; help then wins over every usage error.
    let helpFlagGiven: Bool
    /// Whether `--version` appears before `--` and the root has a version to print.
    let versionFlagGiven: Bool
    /// Whether the root has a version, which makes `--version` a built-in flag at every depth.
    private let hasVersion: Bool
    /// Whether the word `help` appeared where a subcommand was expected.
    private(set) var helpWordGiven = false
    /// The command reached so far.
    private(set) var command: CommandSpec
    /// Its path from the executable's name.
    private(set) var path: [String]
    /// Values given on the command line, by option name, in order.
    private(set) var givenOptions: [String: [String]] = [:]
    /// Flags given on the command line.
    private(set) var givenFlags: Set<String> = []
    /// Positional words for the command reached.
    private(set) var positionals: [String] = []

    /// Prepares to scan `tokens` (without the executable's name) against `root`.
    init(tokens: [String], root: CommandSpec) {
        self.tokens = tokens[...]
        let optionTokens = tokens.prefix { $0 != "--" }
        self.helpFlagGiven = optionTokens.contains(where: Self.isHelpFlag)
        self.hasVersion = root.version != nil
        self.versionFlagGiven = hasVersion && optionTokens.contains(Self.versionFlag)
        self.command = root
        self.path = [root.name]
    }

    /// Reads every token.
    ///
    /// - Throws: ``UsageError`` at the first token that does not fit the command reached so far.
    mutating func scan() throws(UsageError) {
        var optionsEnded = false
        while let token = tokens.popFirst() {
            if !optionsEnded && token.hasPrefix("-") && token != "-" {
                if token == "--" {
                    optionsEnded = true
                } else if !Self.isHelpFlag(token) && !(hasVersion && token == Self.versionFlag) {
                    try scanOption(token)
                }
            } else if command.isGroup {
                try descend(into: token)
            } else if helpWordGiven {
                throw error(UsageError.unexpectedArguments([token]))
            } else {
                positionals.append(token)
            }
        }
    }

    /// A usage error about the command reached so far.
    func error(_ message: String) -> UsageError {
        UsageError(message: message, commandPath: path, usage: HelpRenderer.usage(command, path: path))
    }

    /// The built-in flag that prints the version, when the root has one.
    static let versionFlag = "--version"

    /// Whether a token asks for help.
    static func isHelpFlag(_ token: String) -> Bool {
        token == "-h" || token == "--help"
    }

    /// Moves to the subcommand `word` names, or starts `help <subcommand>…`.
    private mutating func descend(into word: String) throws(UsageError) {
        if let subcommand = command.subcommand(named: word) {
            command = subcommand
            path.append(subcommand.name)
        } else if word == "help" && !helpWordGiven {
            helpWordGiven = true
        } else {
            let suggestion = NameSuggester.suggestion(for: word, among: command.subcommands.map(\.name))
            throw error(UsageError.unknownSubcommand(word, suggestion: suggestion))
        }
    }

    /// Reads one option or flag, `--name`, `--name=value` or `-n`, with its value if it takes one.
    private mutating func scanOption(_ token: String) throws(UsageError) {
        if token.hasPrefix("--") {
            let body = token.dropFirst(2)
            let equals = body.firstIndex(of: "=")
            let name = String(body[..<(equals ?? body.endIndex)])
            let inlineValue = equals.map { String(body[body.index(after: $0)...]) }
            if let option = command.option(named: name) {
                try take(option, spelled: "--\(name)", inlineValue: inlineValue)
            } else if let flag = command.flag(named: name) {
                if let inlineValue { throw error(UsageError.unexpectedValue("--\(name)", value: inlineValue)) }
                givenFlags.insert(flag.name)
            } else {
                let names = command.options.map(\.name) + command.flags.map(\.name) + ["help"]
                    + (hasVersion ? ["version"] : [])
                let suggestion = NameSuggester.suggestion(for: name, among: names).map { "--\($0)" }
                throw error(UsageError.unknownOption("--\(name)", suggestion: suggestion))
            }
        } else {
            // Short options are single letters given alone; `-abc` bundles and `-fjson` are not
            // supported, so they are reported as they were typed.
            let letter = token.count == 2 ? token.last : nil
            if let option = command.options.first(where: { $0.shortName != nil && $0.shortName == letter }) {
                try take(option, spelled: token, inlineValue: nil)
            } else if let flag = command.flags.first(where: { $0.shortName != nil && $0.shortName == letter }) {
                givenFlags.insert(flag.name)
            } else {
                throw error(UsageError.unknownOption(token, suggestion: nil))
            }
        }
    }

    /// Records an option's value: the inline one, or the next token unless that looks like an option.
    private mutating func take(_ option: OptionSpec, spelled: String, inlineValue: String?) throws(UsageError) {
        let value: String
        if let inlineValue {
            value = inlineValue
        } else if let next = tokens.first, !(next.hasPrefix("-") && next != "-") {
            value = next
            tokens.removeFirst()
        } else {
            throw error(UsageError.missingValue(spelled, valueName: option.valueName))
        }
        guard option.allowedValues.isEmpty || option.allowedValues.contains(value) else {
            throw error(UsageError.invalidValue(
                value, for: option.unadornedSynopsis, from: .commandLine, allowedValues: option.allowedValues))
        }
        givenOptions[option.name, default: []].append(value)
    }
}
