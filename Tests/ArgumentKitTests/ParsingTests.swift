import ArgumentKit
import Testing

@Suite struct ParsingTests {
    let environment = ["CARDINAL_DATABASE_URL": "postgresql://localhost/cardinal"]

    @Test("Subcommand words select the command path")
    func subcommandWordsSelectThePath() throws {
        let parsed = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(parsed.commandPath == ["cardinal", "report", "control"])
    }

    @Test("An option's value may follow it as the next word")
    func valueAsNextWord() throws {
        let parsed = try #require(SampleCommands.parse(["keys", "create", "--app", "shop"], environment: environment).parsed)
        #expect(parsed.option("app") == "shop")
        #expect(parsed.option("description") == nil)
    }

    @Test("An option's value may be joined to it with an equals sign, keeping later equals signs")
    func valueAfterEqualsSign() throws {
        let words = ["keys", "create", "--app=shop", "--description=a=b"]
        let parsed = try #require(SampleCommands.parse(words, environment: environment).parsed)
        #expect(parsed.option("app") == "shop")
        #expect(parsed.option("description") == "a=b")
    }

    @Test("A value starting with a dash, or an empty value, can be given after an equals sign")
    func dashAndEmptyValuesAfterEqualsSign() throws {
        let dash = try #require(
            SampleCommands.parse(["keys", "create", "--app=-x"], environment: environment).parsed)
        #expect(dash.option("app") == "-x")
        let empty = try #require(
            SampleCommands.parse(["keys", "create", "--app", "a", "--description="], environment: environment).parsed)
        #expect(empty.option("description") == "")
    }

    @Test("A short option takes the next word as its value")
    func shortOption() throws {
        let parsed = try #require(SampleCommands.parse(["report", "control", "-f", "json"], environment: environment).parsed)
        #expect(parsed.option("format") == "json")
    }

    @Test("A flag is off unless given, and on when given by its long or short name")
    func flags() throws {
        let none = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(!none.flag("verbose"))
        #expect(!none.flag("fail-on-anomalies"))
        let both = try #require(
            SampleCommands.parse(["report", "control", "-v", "--fail-on-anomalies"], environment: environment).parsed)
        #expect(both.flag("verbose"))
        #expect(both.flag("fail-on-anomalies"))
    }

    @Test("Positional arguments are matched in order, before or after options")
    func positionalArguments() throws {
        let before = try #require(
            SampleCommands.parse(["keys", "revoke", "key-1", "--database-url", "u"]).parsed)
        #expect(before.argument("key-id") == "key-1")
        let after = try #require(
            SampleCommands.parse(["keys", "revoke", "--database-url", "u", "key-2"]).parsed)
        #expect(after.argument("key-id") == "key-2")
        #expect(after.option("database-url") == "u")
    }

    @Test("An optional argument left out has no value")
    func optionalArgumentLeftOut() throws {
        let parsed = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(parsed.argument("output") == nil)
    }

    @Test("A lone dash is a positional argument, as for standard output")
    func loneDash() throws {
        let parsed = try #require(SampleCommands.parse(["report", "control", "-"], environment: environment).parsed)
        #expect(parsed.argument("output") == "-")
    }

    @Test("After a double dash, words starting with a dash are positional arguments")
    func doubleDashEndsOptions() throws {
        let parsed = try #require(
            SampleCommands.parse(["keys", "revoke", "--", "-k1"], environment: environment).parsed)
        #expect(parsed.argument("key-id") == "-k1")
    }

    @Test("A repeatable option collects every value in order")
    func repeatableOption() throws {
        let words = ["report", "control", "--campaign", "b", "--campaign=a", "--campaign", "c"]
        let parsed = try #require(SampleCommands.parse(words, environment: environment).parsed)
        #expect(parsed.options("campaign") == ["b", "a", "c"])
        #expect(parsed.option("campaign") == "c")
    }

    @Test("A repeatable option never given has no values")
    func repeatableOptionAbsent() throws {
        let parsed = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(parsed.options("campaign").isEmpty)
    }

    @Test("A non-repeatable option given twice keeps the last value")
    func lastValueWins() throws {
        let words = ["report", "control", "--format", "csv", "-f", "json"]
        let parsed = try #require(SampleCommands.parse(words, environment: environment).parsed)
        #expect(parsed.option("format") == "json")
    }

    @Test("A root command without subcommands parses its own options")
    func rootLeaf() throws {
        let outcome = CommandLineParser.parse(
            ["--listen", "0.0.0.0:9000", "--read-only"], root: SampleCommands.cardinald, environment: environment)
        let parsed = try #require(outcome.parsed)
        #expect(parsed.commandPath == ["cardinald"])
        #expect(parsed.option("listen") == "0.0.0.0:9000")
        #expect(parsed.flag("read-only"))
    }
}
