import ArgumentKit

/// Typed commands for the tests of ``ParsableCommand``: a small tree with every kind of declaration.
enum TypedSampleCommands {
    /// An output format, read as an enumeration.
    enum Format: String, CaseIterable, Sendable {
        case table, csv, json
    }

    /// `tool export`: every kind of declaration once.
    struct Export: ParsableCommand {
        static let name = "export"
        static let abstract = "Export rows."
        static let discussion: String? = "Rows are written in the order they were stored."

        let destination = Argument("destination", help: "Where to write.")
        let limit = Option("limit", help: "Rows at most.", valueName: "count", environment: "TOOL_LIMIT", parser: .integer)
        let format = RequiredOption("format", help: "Output format.", default: "table", parser: .oneOf(Format.self))
        let owner = RequiredOption("owner", help: "Whose rows.", environment: "TOOL_OWNER")
        let timeout = Option("timeout", help: "Give up after this long.", valueName: "duration", parser: .duration)
        let tags = RepeatedOption("tag", help: "Only rows with this tag; repeat for several.")
        let even = Option("even", help: "An even number.", valueName: "n", parser: ValueParser { text throws(InvalidArgumentValue) in
            guard let number = Int(text) else { throw InvalidArgumentValue("expected a whole number") }
            guard number.isMultiple(of: 2) else { throw InvalidArgumentValue("\(number) is odd") }
            return number
        })
        let verbose = Flag("verbose", short: "v", help: "Say more.", environment: "TOOL_VERBOSE")

        static func run(_ parsed: ParsedCommand<Self>) throws {
            throw Ran(parsed: parsed)
        }
    }

    /// `tool ping`: no declarations at all.
    struct Ping: ParsableCommand {
        static let name = "ping"
        static let abstract = "Check the connection."

        static func run(_ parsed: ParsedCommand<Self>) throws {
            throw Ran(parsed: parsed)
        }
    }

    static let tree = CommandTree.group(
        "tool", abstract: "A tool.", version: "1.0",
        subcommands: [.command(Ping.self), .group("rows", abstract: "Rows.", subcommands: [.command(Export.self)])]
    )

    /// What a sample command's `run` throws, so a test gets the values it was given without shared state.
    struct Ran<Command: ParsableCommand>: Error {
        let parsed: ParsedCommand<Command>
    }

    /// Parses `words` with the sample tree and runs the command they name, which must be `Command`.
    ///
    /// - Returns: The typed values the command received.
    static func run<Command: ParsableCommand>(
        _ words: [String], as _: Command.Type, environment: [String: String] = [:]
    ) throws -> ParsedCommand<Command> {
        guard case .run(let invocation) = tree.parse(words, environment: environment) else {
            throw NotRun(outcome: "\(tree.parse(words, environment: environment))")
        }
        do {
            try invocation.run()
        } catch let ran as Ran<Command> {
            return ran.parsed
        } catch {
            throw NotRun(outcome: "ran another command: \(error)")
        }
        throw NotRun(outcome: "ran a command that threw nothing")
    }

    /// The command line did not run the command a test expected.
    struct NotRun: Error {
        let outcome: String
    }

    /// The usage error the sample tree answers `words` with, if it does.
    static func usageError(_ words: [String], environment: [String: String] = [:]) -> UsageError? {
        if case .usageError(let error) = tree.parse(words, environment: environment) { error } else { nil }
    }
}
