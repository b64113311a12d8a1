/// A declarative description of one command: its name, help text, and what it accepts.
///
/// A command either groups subcommands or takes arguments, options and flags, never both; this keeps
/// every option next to the code that uses it, and `cardinal keys --app x create` is never ambiguous.
///
/// ```swift
/// let create = CommandSpec(
///     name: "create",
///     abstract: "Create an ingest key and print it once.",
///     options: [
///         OptionSpec("app", help: "The app the key belongs to.", isRequired: true),
///         OptionSpec("description", help: "A note on what the key is for.", valueName: "text"),
///     ])
/// let keys = CommandSpec(name: "keys", abstract: "Manage ingest keys.", subcommands: [create])
/// ```
///
/// Parsing checks the spec tree first and stops the program on a contradiction (a group with
/// options, two options with one name, a default outside the allowed values): those are programmer
/// errors, found by the first run of any test that parses with the spec.
public struct CommandSpec: Sendable {
    /// The word that selects this command on the command line; for the root, the executable's name.
    public var name: String
    /// One sentence shown after `OVERVIEW:` in help and next to the name in the parent's subcommand list.
    public var abstract: String
    /// Longer help shown below the overview; line breaks are kept and long lines are wrapped.
    public var discussion: String?
    /// Positional arguments, in the order they are given; required ones must come before optional ones.
    public var arguments: [ArgumentSpec]
    /// Options that take a value, such as `--format json`.
    public var options: [OptionSpec]
    /// Boolean switches, such as `--fail-on-anomalies`.
    public var flags: [FlagSpec]
    /// Nested commands; a command with subcommands takes no arguments, options or flags of its own.
    public var subcommands: [CommandSpec]
    /// The executable's version, such as `0.1.0`; only the root command may have one.
    ///
    /// With a version, `--version` anywhere before `--`, at any depth of the tree, prints
    /// `<root name> <version>` (as GNU tools do; swift-argument-parser prints the version alone) and
    /// every command's help lists `--version` above `-h, --help`, as swift-argument-parser does.
    public var version: String?

    /// Creates a command description.
    ///
    /// - Parameters:
    ///   - name: The word that selects the command (the executable's name for the root).
    ///   - abstract: One sentence saying what the command does.
    ///   - discussion: Optional longer help text.
    ///   - arguments: Positional arguments in order.
    ///   - options: Options that take a value.
    ///   - flags: Boolean switches.
    ///   - subcommands: Nested commands; leave empty for a command that runs.
    ///   - version: The executable's version, for the root command only; it turns on `--version`.
    public init(
        name: String,
        abstract: String,
        discussion: String? = nil,
        arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [],
        flags: [FlagSpec] = [],
        subcommands: [CommandSpec] = [],
        version: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.flags = flags
        self.subcommands = subcommands
        self.version = version
    }

    /// Whether this command only groups subcommands.
    var isGroup: Bool { !subcommands.isEmpty }

    /// The subcommand selected by `word`, if any.
    func subcommand(named word: String) -> CommandSpec? {
        subcommands.first { $0.name == word }
    }

    /// The option whose long name (without dashes) is `name`.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The flag whose long name (without dashes) is `name`.
    func flag(named name: String) -> FlagSpec? {
        flags.first { $0.name == name }
    }
}
