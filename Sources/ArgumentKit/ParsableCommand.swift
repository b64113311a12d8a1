/// A command that runs: its name and help, its options, flags and arguments declared once as typed stored
/// properties, and the code that runs it, in one type — the shape of swift-argument-parser's commands.
///
/// ```swift
/// struct CreateKey: ParsableCommand {
///     static let name = "create"
///     static let abstract = "Create an ingest key and print it once."
///
///     let app = RequiredOption("app", help: "The app the key belongs to.")
///     let description = Option("description", help: "Where the key is used.", valueName: "text")
///
///     static func run(_ parsed: ParsedCommand<Self>) throws {
///         print(parsed.app, parsed.description ?? "")   // String, String?
///     }
/// }
/// ```
///
/// The spec that the parser and help use is derived from the stored properties, in declaration order,
/// and `run` reads them back through ``ParsedCommand`` by key path: the command tree and the code cannot
/// disagree, and reading a value the command does not declare, or as the wrong type, does not compile.
public protocol ParsableCommand: Sendable {
    /// The word that selects the command on the command line.
    static var name: String { get }
    /// One sentence shown after `OVERVIEW:` in help and next to the name in the parent's list.
    static var abstract: String { get }
    /// Longer help shown below the overview; `nil` for none.
    static var discussion: String? { get }

    /// Makes the declarations; every stored ``Option``, ``RequiredOption``, ``RepeatedOption``, ``Flag`` and
    /// ``Argument`` property is part of the command.
    init()

    /// Runs the command with the values the command line gave.
    ///
    /// - Parameter parsed: The typed values, read as `parsed.app`.
    /// - Throws: Whatever the command fails with; the executable decides how to report it.
    static func run(_ parsed: ParsedCommand<Self>) throws
}

extension ParsableCommand {
    /// No discussion unless the command declares one.
    public static var discussion: String? { nil }

    /// The declarations among the stored properties, in declaration order.
    static var declarations: [any ArgumentDeclaration] {
        Mirror(reflecting: Self()).children.compactMap { $0.value as? any ArgumentDeclaration }
    }

    /// The command as the parser and help see it, derived from its declarations.
    public static var spec: CommandSpec {
        var spec = CommandSpec(name: name, abstract: abstract, discussion: discussion)
        for declaration in declarations {
            declaration.declare(in: &spec)
        }
        return spec
    }
}
