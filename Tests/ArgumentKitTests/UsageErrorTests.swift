import ArgumentKit
import Testing

@Suite struct UsageErrorTests {
    let environment = ["CARDINAL_DATABASE_URL": "postgresql://localhost/cardinal"]

    /// The full stderr text for a command line that must fail.
    func errorText(_ words: [String], environment: [String: String]? = nil) throws -> String {
        let error = try #require(SampleCommands.parse(words, environment: environment ?? self.environment).error)
        return error.description
    }

    @Test("A missing required option is reported with the usage line and where to find help")
    func missingRequiredOption() throws {
        #expect(try errorText(["keys", "create"]) == """
            Error: Missing expected argument '--app <app>'
            Usage: cardinal keys create --app <app> [--description <text>]
                                        --database-url <url>
              See 'cardinal keys create --help' for more information.

            """)
    }

    @Test("A required option with an environment variable is missing when the variable is unset")
    func missingRequiredOptionWithoutVariable() throws {
        let error = try #require(SampleCommands.parse(["migrate"], environment: [:]).error)
        #expect(error.message == "Missing expected argument '--database-url <url>'")
        #expect(error.commandPath == ["cardinal", "migrate"])
    }

    @Test("A missing positional argument is reported by its name")
    func missingArgument() throws {
        #expect(try errorText(["keys", "revoke"]) == """
            Error: Missing expected argument '<key-id>'
            Usage: cardinal keys revoke --database-url <url> <key-id>
              See 'cardinal keys revoke --help' for more information.

            """)
    }

    @Test("An option at the end of the line is missing its value")
    func missingValueAtEnd() throws {
        let error = try #require(SampleCommands.parse(["keys", "create", "--app"], environment: environment).error)
        #expect(error.message == "Missing value for '--app <app>'")
    }

    @Test("An option followed by another option is missing its value, named as it was typed")
    func missingValueBeforeOption() throws {
        let long = try #require(
            SampleCommands.parse(["keys", "create", "--app", "--description", "x"], environment: environment).error)
        #expect(long.message == "Missing value for '--app <app>'")
        let short = try #require(SampleCommands.parse(["report", "control", "-f", "-v"], environment: environment).error)
        #expect(short.message == "Missing value for '-f <format>'")
    }

    @Test("An unknown option close to a declared one suggests it")
    func unknownOptionWithSuggestion() throws {
        #expect(try errorText(["keys", "create", "--app", "a", "--descripton", "x"]) == """
            Error: Unknown option '--descripton'. Did you mean '--description'?
            Usage: cardinal keys create --app <app> [--description <text>]
                                        --database-url <url>
              See 'cardinal keys create --help' for more information.

            """)
    }

    @Test("A mistyped help option suggests --help")
    func unknownOptionSuggestsHelp() throws {
        let error = try #require(SampleCommands.parse(["migrate", "--hepl"], environment: environment).error)
        #expect(error.message == "Unknown option '--hepl'. Did you mean '--help'?")
    }

    @Test("An unknown option far from every declared one suggests nothing")
    func unknownOptionWithoutSuggestion() throws {
        let error = try #require(SampleCommands.parse(["report", "control", "--colour"], environment: environment).error)
        #expect(error.message == "Unknown option '--colour'")
    }

    @Test("An unknown short option or a bundle of short options is reported as typed")
    func unknownShortOption() throws {
        let single = try #require(SampleCommands.parse(["report", "control", "-x"], environment: environment).error)
        #expect(single.message == "Unknown option '-x'")
        let bundle = try #require(SampleCommands.parse(["report", "control", "-vf"], environment: environment).error)
        #expect(bundle.message == "Unknown option '-vf'")
    }

    @Test("An option given before the subcommand that declares it is unknown to the group")
    func optionBeforeSubcommand() throws {
        #expect(try errorText(["--app", "a", "keys", "create"]) == """
            Error: Unknown option '--app'
            Usage: cardinal <subcommand>
              See 'cardinal --help' for more information.

            """)
    }

    @Test("One extra word is an unexpected argument")
    func unexpectedArgument() throws {
        #expect(try errorText(["keys", "revoke", "k1", "k2"]) == """
            Error: Unexpected argument 'k2'
            Usage: cardinal keys revoke --database-url <url> <key-id>
              See 'cardinal keys revoke --help' for more information.

            """)
    }

    @Test("Several extra words are counted and listed")
    func unexpectedArguments() throws {
        let error = try #require(SampleCommands.parse(["keys", "revoke", "k1", "k2", "k3"], environment: environment).error)
        #expect(error.message == "2 unexpected arguments: 'k2', 'k3'")
    }

    @Test("An unknown subcommand close to a declared one suggests it")
    func unknownSubcommandWithSuggestion() throws {
        #expect(try errorText(["keys", "craete"]) == """
            Error: Unknown subcommand 'craete'. Did you mean 'create'?
            Usage: cardinal keys <subcommand>
              See 'cardinal keys --help' for more information.

            """)
    }

    @Test("An unknown subcommand far from every declared one suggests nothing")
    func unknownSubcommandWithoutSuggestion() throws {
        let error = try #require(SampleCommands.parse(["frobnicate"], environment: environment).error)
        #expect(error.message == "Unknown subcommand 'frobnicate'")
        #expect(error.commandPath == ["cardinal"])
    }

    @Test("A value outside an option's allowed values lists the allowed ones")
    func invalidAllowedValue() throws {
        #expect(try errorText(["report", "control", "--format", "xml"]) == """
            Error: The value 'xml' is invalid for '--format <format>'. Please provide one of 'table', 'csv' or 'json'.
            Usage: cardinal report control [--format <format>] [--campaign <id> ...]
                                           [--timeout <duration>] [--limit <count>]
                                           --database-url <url> [--fail-on-anomalies]
                                           [--verbose] [<output>]
              See 'cardinal report control --help' for more information.

            """)
    }

    @Test("A value from the environment outside the allowed values names the variable")
    func invalidAllowedValueFromEnvironment() throws {
        let environment = self.environment.merging(["CARDINAL_FORMAT": "xml"]) { $1 }
        let error = try #require(SampleCommands.parse(["report", "control"], environment: environment).error)
        #expect(error.message == """
            The value 'xml' of environment variable 'CARDINAL_FORMAT' is invalid for '--format <format>'. \
            Please provide one of 'table', 'csv' or 'json'.
            """)
    }

    @Test("A flag's environment variable that is not a boolean word is a usage error")
    func invalidFlagVariable() throws {
        let environment = self.environment.merging(["CARDINAL_VERBOSE": "loud"]) { $1 }
        let error = try #require(SampleCommands.parse(["report", "control"], environment: environment).error)
        #expect(error.message == """
            The value 'loud' of environment variable 'CARDINAL_VERBOSE' is invalid for '--verbose'. \
            Please provide one of 'true' or 'false'.
            """)
    }

    @Test("A flag given a value is a usage error")
    func flagWithValue() throws {
        let error = try #require(SampleCommands.parse(["report", "control", "--verbose=yes"], environment: environment).error)
        #expect(error.message == "The option '--verbose' does not take any value, but 'yes' was specified.")
    }

    @Test("A command's own usage error carries its usage line")
    func commandMadeUsageError() throws {
        let parsed = try #require(SampleCommands.parse(["migrate"], environment: environment).parsed)
        #expect(parsed.usageError("'--from' must not be after '--to'.").description == """
            Error: '--from' must not be after '--to'.
            Usage: cardinal migrate --database-url <url>
              See 'cardinal migrate --help' for more information.

            """)
    }

    @Test("Usage errors exit with status 64, other failures with 1 and success with 0")
    func exitCodes() {
        #expect(ExitCode.usage == 64)
        #expect(ExitCode.failure == 1)
        #expect(ExitCode.success == 0)
    }
}
