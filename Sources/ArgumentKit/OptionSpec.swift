/// An option of a command that takes a value, such as `--format json` or `--format=json`.
///
/// The value comes from the command line if given, else from the environment variable if the spec
/// names one and it is set to a non-empty string, else from the default. Help shows the default and the
/// variable. A value that starts with `-` must be written `--name=value`, so that a forgotten value
/// (`--app --format json`) is reported instead of swallowing the next option.
public struct OptionSpec: Sendable {
    /// The long name without dashes, in kebab-case: `database-url` is given as `--database-url`.
    public var name: String
    /// An optional one-letter alias, given as `-f json`.
    public var shortName: Character?
    /// One sentence shown next to the option in help.
    public var help: String
    /// The placeholder shown as `<valueName>` in usage and help; the name by default.
    public var valueName: String
    /// The value used when neither the command line nor the environment gives one; shown in help.
    public var defaultValue: String?
    /// The environment variable consulted when the option is not given, shown in help as `(env: NAME)`.
    public var environmentVariable: String?
    /// The only values accepted, checked at parse time; empty accepts any value. Say them in `help`.
    public var allowedValues: [String]
    /// Whether parsing fails when no value comes from the command line, environment or default.
    public var isRequired: Bool
    /// Whether the option may be given several times, collecting every value in order.
    /// A non-repeatable option given twice keeps the last value, as swift-argument-parser does.
    public var isRepeatable: Bool

    /// Creates an option description.
    ///
    /// - Parameters:
    ///   - name: The kebab-case long name, without dashes.
    ///   - short: An optional one-letter alias.
    ///   - help: One sentence for the help text.
    ///   - valueName: The placeholder in `<…>`; defaults to `name`.
    ///   - default: The value used when none is given.
    ///   - environment: The environment variable consulted when the option is not given.
    ///   - allowedValues: The only accepted values; empty accepts any.
    ///   - isRequired: Pass `true` if a value must come from somewhere.
    ///   - isRepeatable: Pass `true` to collect every occurrence.
    public init(
        _ name: String,
        short: Character? = nil,
        help: String,
        valueName: String? = nil,
        default: String? = nil,
        environment: String? = nil,
        allowedValues: [String] = [],
        isRequired: Bool = false,
        isRepeatable: Bool = false
    ) {
        self.name = name
        self.shortName = short
        self.help = help
        self.valueName = valueName ?? name
        self.defaultValue = `default`
        self.environmentVariable = environment
        self.allowedValues = allowedValues
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
    }

    /// How the option is named in error messages: `--format <format>`.
    var unadornedSynopsis: String { "--\(name) <\(valueName)>" }

    /// How the option appears in help: `-f, --format <format>`.
    var label: String {
        shortName.map { "-\($0), \(unadornedSynopsis)" } ?? unadornedSynopsis
    }

    /// Whether a usage line shows the option in brackets.
    var isOptionalInUsage: Bool { !isRequired || defaultValue != nil }

    /// How the option appears in a usage line: `--app <app>`, `[--format <format>]`, `[--tag <tag> ...]`.
    var synopsis: String {
        let repeated = isRepeatable ? "\(unadornedSynopsis) ..." : unadornedSynopsis
        return isOptionalInUsage ? "[\(repeated)]" : repeated
    }

    /// What help appends to the text: `(default: table)` and `(env: CARDINAL_FORMAT)`.
    var annotations: [String] {
        var annotations: [String] = []
        if let defaultValue, !defaultValue.isEmpty { annotations.append("(default: \(defaultValue))") }
        if let environmentVariable { annotations.append("(env: \(environmentVariable))") }
        return annotations
    }
}
