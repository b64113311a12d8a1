import ArgumentKit
import Testing

@Suite struct TypedValuesTests {
    static let server = CommandSpec(
        name: "server",
        abstract: "Serve.",
        options: [
            OptionSpec("port", help: "Port to listen on.", environment: "PORT"),
            OptionSpec("timeout", help: "Request timeout.", valueName: "duration", default: "30s"),
        ])

    func parse(_ words: [String], environment: [String: String] = [:]) throws -> ParsedArguments {
        try #require(CommandLineParser.parse(words, root: Self.server, environment: environment).parsed)
    }

    @Test("A whole number converts to an integer")
    func integer() throws {
        #expect(try parse(["--port", "8080"]).integer("port") == 8080)
    }

    @Test("An option without a value converts to nil")
    func absentInteger() throws {
        #expect(try parse([]).integer("port") == nil)
    }

    @Test("A value that is not a whole number is a usage error about the option")
    func invalidInteger() throws {
        let parsed = try parse(["--port", "eighty"])
        #expect(throws: parsed.usageError("The value 'eighty' is invalid for '--port <port>': expected a whole number")) {
            try parsed.integer("port")
        }
    }

    @Test("A bad value from the environment names the variable in the usage error")
    func invalidIntegerFromEnvironment() throws {
        let parsed = try parse([], environment: ["PORT": "http"])
        let message = "The value 'http' of environment variable 'PORT' is invalid for '--port <port>': expected a whole number"
        #expect(throws: parsed.usageError(message)) {
            try parsed.integer("port")
        }
    }

    @Test("A number with a unit converts to a duration", arguments: [
        ("250ms", Duration.milliseconds(250)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("1h", .seconds(3600)),
    ])
    func duration(text: String, expected: Duration) throws {
        #expect(try parse(["--timeout", text]).duration("timeout") == expected)
    }

    @Test("A default value converts like a given one")
    func defaultDuration() throws {
        #expect(try parse([]).duration("timeout") == .seconds(30))
    }

    @Test("A duration without a known unit or whole number is a usage error",
          arguments: ["30", "s", "1.5s", "-1s", "10d", "5 m", "", "99999999999999999999h"])
    func invalidDuration(text: String) throws {
        let parsed = try parse(["--timeout=\(text)"])
        let message = "The value '\(text)' is invalid for '--timeout <duration>': "
            + "expected a duration such as 250ms, 30s, 5m or 1h"
        #expect(throws: parsed.usageError(message)) {
            try parsed.duration("timeout")
        }
    }
}
