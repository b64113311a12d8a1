/// A positional argument of a command, such as the `<key-id>` of `cardinal keys revoke <key-id>`.
public struct ArgumentSpec: Sendable {
    /// The name used to look the value up and shown as `<name>` in usage and help; kebab-case.
    public var name: String
    /// One sentence shown next to the argument in help.
    public var help: String
    /// Whether the argument may be left out; optional arguments must follow all required ones.
    public var isOptional: Bool

    /// Creates a positional argument description.
    ///
    /// - Parameters:
    ///   - name: The kebab-case name, shown as `<name>`.
    ///   - help: One sentence for the help text.
    ///   - isOptional: Pass `true` if the argument may be left out.
    public init(_ name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }

    /// How the argument appears in help: `<name>`.
    var label: String { "<\(name)>" }

    /// How the argument appears in a usage line: `<name>` or `[<name>]`.
    var synopsis: String { isOptional ? "[\(label)]" : label }
}
