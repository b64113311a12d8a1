import ArgumentKit
import Testing

@Suite struct VersionFlagTests {
    /// Parses against `cardinal` with version 1.2.3.
    func parse(_ words: [String], environment: [String: String] = [:]) -> ParseOutcome {
        CommandLineParser.parse(words, root: SampleCommands.versionedCardinal, environment: environment)
    }

    @Test("--version prints the executable's name and version", arguments: [
        ["--version"], ["keys", "--version"], ["keys", "create", "--version"], ["migrate", "--version"],
    ])
    func versionAtAnyDepth(words: [String]) {
        #expect(parse(words).versionText == "cardinal 1.2.3\n")
    }

    @Test("--version wins over usage errors, as help does")
    func versionWinsOverErrors() {
        #expect(parse(["keys", "create", "--bogus", "--version"]).versionText == "cardinal 1.2.3\n")
        #expect(parse(["keys", "create", "--version"]).versionText == "cardinal 1.2.3\n", "missing --app")
        #expect(parse(["kyes", "--version"]).versionText == "cardinal 1.2.3\n")
    }

    @Test("Help wins over --version")
    func helpWinsOverVersion() {
        let help = HelpRenderer.render(SampleCommands.create, path: ["cardinal", "keys", "create"], listsVersionFlag: true)
        #expect(parse(["keys", "create", "--version", "--help"]).helpText == help)
        #expect(parse(["--version", "help", "keys", "create"]).helpText == help)
    }

    @Test("--version after a double dash is an ordinary word")
    func versionAfterDoubleDash() throws {
        let parsed = try #require(parse(["keys", "revoke", "--database-url", "u", "--", "--version"]).parsed)
        #expect(parsed.argument("key-id") == "--version")
    }

    @Test("Without a version, --version is an unknown option")
    func noVersion() throws {
        let error = try #require(SampleCommands.parse(["--version"]).error)
        #expect(error.message == "Unknown option '--version'")
    }

    @Test("A mistyped --version is suggested when there is a version")
    func suggestion() throws {
        let error = try #require(parse(["migrate", "--verison"]).error)
        #expect(error.message == "Unknown option '--verison'. Did you mean '--version'?")
    }

    @Test("Every command's help lists --version above -h, --help when the executable has a version")
    func helpListsVersion() {
        #expect(parse(["keys", "revoke", "--help"]).helpText == """
            OVERVIEW: Revoke an ingest key.

            USAGE: cardinal keys revoke --database-url <url> <key-id>

            ARGUMENTS:
              <key-id>                The key to revoke.

            OPTIONS:
              --database-url <url>    libpq connection string or URI of the database.
                                      (env: CARDINAL_DATABASE_URL)
              --version               Show the version.
              -h, --help              Show help information.

            """)
        #expect(parse([]).helpText == HelpRenderer.render(
            SampleCommands.versionedCardinal, path: ["cardinal"], listsVersionFlag: true))
        #expect(parse([]).helpText?.contains("--version") == true)
        #expect(SampleCommands.parse(["keys", "revoke", "--help"]).helpText?.contains("--version") == false)
    }

    @Test("A version below the root stops the program")
    func versionBelowRoot() async {
        await #expect(processExitsWith: .failure) {
            let leaf = CommandSpec(name: "leaf", abstract: "Leaf.", version: "1.0")
            let root = CommandSpec(name: "tool", abstract: "Tool.", subcommands: [leaf])
            _ = CommandLineParser.parse([], root: root, environment: [:])
        }
    }

    @Test("A flag named version under a root with a version stops the program")
    func versionReserved() async {
        await #expect(processExitsWith: .failure) {
            let leaf = CommandSpec(name: "leaf", abstract: "Leaf.", flags: [FlagSpec("version", help: "V.")])
            let root = CommandSpec(name: "tool", abstract: "Tool.", subcommands: [leaf], version: "1.0")
            _ = CommandLineParser.parse([], root: root, environment: [:])
        }
    }

    @Test("Without a version at the root, a command may have its own --version option")
    func versionFreeWithoutRootVersion() throws {
        let leaf = CommandSpec(name: "leaf", abstract: "Leaf.", options: [OptionSpec("version", help: "V.")])
        let root = CommandSpec(name: "tool", abstract: "Tool.", subcommands: [leaf])
        let parsed = try #require(CommandLineParser.parse(["leaf", "--version", "2"], root: root, environment: [:]).parsed)
        #expect(parsed.option("version") == "2")
    }
}
