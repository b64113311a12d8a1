import ArgumentKit
import Testing

/// Numbers and durations as typed declarations read them, on an executable that is a single command.
@Suite struct TypedValuesTests {
    struct Server: ParsableCommand {
        static let name = "server"
        static let abstract = "Serve."

        let port = Option("port", help: "Port to listen on.", environment: "PORT", parser: .integer)
        let timeout = RequiredOption("timeout", help: "Request timeout.", valueName: "duration", default: "30s",
                                     parser: .duration)
        let threads = RequiredOption("threads", help: "Threads.", valueName: "n", default: "1", parser: .integer(in: 0...8))
        let workers = RequiredOption("workers", help: "Workers.", valueName: "n", default: "2",
                                     parser: .integer(atLeast: 1))

        static func run(_ parsed: ParsedCommand<Self>) throws {
            throw Ran(parsed: parsed)
        }
    }

    /// What `Server.run` throws, so that a test gets the values without shared state.
    struct Ran: Error {
        let parsed: ParsedCommand<Server>
    }

    static let tree = CommandTree.root(Server.self, version: "2.0")

    func parse(_ words: [String], environment: [String: String] = [:]) throws -> ParsedCommand<Server> {
        guard case .run(let invocation) = Self.tree.parse(words, environment: environment) else {
            throw TypedSampleCommands.NotRun(outcome: "\(Self.tree.parse(words, environment: environment))")
        }
        do {
            try invocation.run()
        } catch let ran as Ran {
            return ran.parsed
        }
        throw TypedSampleCommands.NotRun(outcome: "the command threw nothing")
    }

    func error(_ words: [String], environment: [String: String] = [:]) -> String? {
        if case .usageError(let error) = Self.tree.parse(words, environment: environment) { error.message } else { nil }
    }

    @Test("A whole number converts to an integer, and an absent option to nil")
    func integer() throws {
        #expect(try parse(["--port", "8080"]).port == 8080)
        #expect(try parse([]).port == nil)
    }

    @Test("A value that is not a whole number is a usage error about the option")
    func invalidInteger() {
        #expect(error(["--port", "eighty"]) == "The value 'eighty' is invalid for '--port <port>': expected a whole number")
    }

    @Test("A bad value from the environment names the variable in the usage error")
    func invalidIntegerFromEnvironment() {
        #expect(error([], environment: ["PORT": "http"])
                == "The value 'http' of environment variable 'PORT' is invalid for '--port <port>': expected a whole number")
    }

    @Test("A number outside its range, or below its least value, is a usage error that states the bounds")
    func boundedIntegers() throws {
        #expect(try parse(["--threads", "0", "--workers", "7"]).threads == 0)
        #expect(error(["--threads", "9"]) == "The value '9' is invalid for '--threads <n>': expected a whole number from 0 to 8")
        #expect(error(["--workers", "0"]) == "The value '0' is invalid for '--workers <n>': expected a whole number of 1 or more")
    }

    @Test("A number with a unit converts to a duration", arguments: [
        ("250ms", Duration.milliseconds(250)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("1h", .seconds(3600)),
    ])
    func duration(text: String, expected: Duration) throws {
        #expect(try parse(["--timeout", text]).timeout == expected)
    }

    @Test("A default value converts like a given one")
    func defaultDuration() throws {
        #expect(try parse([]).timeout == .seconds(30))
    }

    @Test("A duration without a known unit or whole number is a usage error",
          arguments: ["30", "s", "1.5s", "-1s", "10d", "5 m", "", "99999999999999999999h"])
    func invalidDuration(text: String) {
        #expect(error(["--timeout=\(text)"])
                == "The value '\(text)' is invalid for '--timeout <duration>': expected a duration such as 250ms, 30s, 5m or 1h")
    }

    @Test("An executable that is one command answers --version with its name, and its help lists no subcommands")
    func rootCommand() {
        guard case .version(let version) = Self.tree.parse(["--version"], environment: [:]),
              case .help(let help) = Self.tree.parse(["--help"], environment: [:])
        else {
            Issue.record("--version or --help was not answered")
            return
        }
        #expect(version == "server 2.0\n")
        #expect(help.hasPrefix("OVERVIEW: Serve.\n\nUSAGE: server [--port <port>]"))
        #expect(help.contains("--version") && !help.contains("SUBCOMMANDS"))
    }
}
