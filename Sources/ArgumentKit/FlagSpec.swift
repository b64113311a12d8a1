/// A boolean switch of a command, such as `--fail-on-anomalies`; it is off unless given.
///
/// A flag takes no value on the command line (`--flag=yes` is a usage error). It reads the
/// environment only if the spec names a variable, and then accepts `1`, `true`, `yes`, `on` and
/// `0`, `false`, `no`, `off` in any letter case; giving the flag on the command line always turns it on.
public struct FlagSpec: Sendable {
    /// The long name without dashes, in kebab-case: `verbose` is given as `--verbose`.
    public var name: String
    /// An optional one-letter alias, given as `-v`.
    public var shortName: Character?
    /// One sentence shown next to the flag in help.
    public var help: String
    /// The environment variable consulted when the flag is not given, shown in help as `(env: NAME)`.
    public var environmentVariable: String?

    /// Creates a flag description.
    ///
    /// - Parameters:
    ///   - name: The kebab-case long name, without dashes.
    ///   - short: An optional one-letter alias.
    ///   - help: One sentence for the help text.
    ///   - environment: The environment variable that may turn the flag on or off when it is not given.
    public init(_ name: String, short: Character? = nil, help: String, environment: String? = nil) {
        self.name = name
        self.shortName = short
        self.help = help
        self.environmentVariable = environment
    }

    /// How the flag appears in help: `-v, --verbose`.
    var label: String {
        shortName.map { "-\($0), --\(name)" } ?? "--\(name)"
    }

    /// How the flag appears in a usage line: `[--verbose]`.
    var synopsis: String { "[--\(name)]" }

    /// What help appends to the text: `(env: CARDINAL_VERBOSE)`.
    var annotations: [String] {
        environmentVariable.map { ["(env: \($0))"] } ?? []
    }
}
