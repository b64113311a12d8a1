import ArgumentKit
import Testing

@Suite struct HelpRequestTests {
    static let paths: [[String]] = [[], ["keys"], ["keys", "create"], ["keys", "revoke"], ["report", "control"]]

    /// The spec at a path below `cardinal`.
    func spec(at path: [String]) throws -> CommandSpec {
        var spec = SampleCommands.cardinal
        for name in path {
            spec = try #require(spec.subcommands.first { $0.name == name })
        }
        return spec
    }

    @Test("-h, --help and 'help <subcommand>' print the same help", arguments: paths)
    func everyFormPrintsTheSameHelp(path: [String]) throws {
        let expected = HelpRenderer.render(try spec(at: path), path: ["cardinal"] + path)
        #expect(SampleCommands.parse(path + ["--help"]).helpText == expected)
        #expect(SampleCommands.parse(path + ["-h"]).helpText == expected)
        #expect(SampleCommands.parse(["help"] + path).helpText == expected)
    }

    @Test("'help' after a group word gives help for the rest of the path")
    func helpAfterGroupWord() {
        #expect(SampleCommands.parse(["keys", "help", "create"]).helpText
            == SampleCommands.parse(["keys", "create", "--help"]).helpText)
    }

    @Test("A help option anywhere before a double dash wins over usage errors")
    func helpWinsOverErrors() {
        let expected = HelpRenderer.render(SampleCommands.create, path: ["cardinal", "keys", "create"])
        #expect(SampleCommands.parse(["keys", "create", "--bogus", "--help"]).helpText == expected)
        #expect(SampleCommands.parse(["keys", "--help", "create", "--app"]).helpText == expected)
        #expect(SampleCommands.parse(["keys", "create", "--app", "-h"]).helpText == expected)
    }

    @Test("A help option after an unknown subcommand gives help for the group reached")
    func helpAfterUnknownSubcommand() {
        #expect(SampleCommands.parse(["keys", "craete", "--help"]).helpText
            == HelpRenderer.render(SampleCommands.keys, path: ["cardinal", "keys"]))
    }

    @Test("A help option after a double dash is an ordinary word")
    func helpAfterDoubleDash() throws {
        let parsed = try #require(SampleCommands.parse(["keys", "revoke", "--database-url", "u", "--", "--help"]).parsed)
        #expect(parsed.argument("key-id") == "--help")
    }

    @Test("A group given no subcommand prints its help")
    func groupWithoutSubcommand() {
        #expect(SampleCommands.parse([]).helpText == HelpRenderer.render(SampleCommands.cardinal, path: ["cardinal"]))
        #expect(SampleCommands.parse(["report"]).helpText
            == HelpRenderer.render(SampleCommands.report, path: ["cardinal", "report"]))
    }

    @Test("'help' with a mistyped subcommand is a usage error with a suggestion")
    func helpWithUnknownSubcommand() throws {
        let error = try #require(SampleCommands.parse(["help", "kyes"]).error)
        #expect(error.message == "Unknown subcommand 'kyes'. Did you mean 'keys'?")
        #expect(error.commandPath == ["cardinal"])
    }

    @Test("'help' followed by a word past a command without subcommands is a usage error")
    func helpWithExtraWord() throws {
        let error = try #require(SampleCommands.parse(["help", "keys", "create", "extra"]).error)
        #expect(error.message == "Unexpected argument 'extra'")
        #expect(error.commandPath == ["cardinal", "keys", "create"])
    }
}
