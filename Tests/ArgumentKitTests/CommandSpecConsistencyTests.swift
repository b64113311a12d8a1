import ArgumentKit
import Testing

@Suite struct CommandSpecConsistencyTests {
    @Test("A group that also declares options stops the program")
    func groupWithOptions() async {
        await #expect(processExitsWith: .failure) {
            let leaf = CommandSpec(name: "leaf", abstract: "Leaf.")
            let group = CommandSpec(
                name: "group", abstract: "Group.", options: [OptionSpec("x", help: "X.")], subcommands: [leaf])
            _ = CommandLineParser.parse([], root: group, environment: [:])
        }
    }

    @Test("Two options with one name stop the program")
    func duplicateNames() async {
        await #expect(processExitsWith: .failure) {
            let spec = CommandSpec(
                name: "tool", abstract: "Tool.", options: [OptionSpec("x", help: "X."), OptionSpec("x", help: "Y.")])
            _ = CommandLineParser.parse([], root: spec, environment: [:])
        }
    }

    @Test("A default outside the allowed values stops the program")
    func defaultNotAllowed() async {
        await #expect(processExitsWith: .failure) {
            let format = OptionSpec("format", help: "Format.", default: "xml", allowedValues: ["json"])
            let spec = CommandSpec(name: "tool", abstract: "Tool.", options: [format])
            _ = CommandLineParser.parse([], root: spec, environment: [:])
        }
    }

    @Test("A consistent spec tree parses without stopping")
    func consistentTree() {
        #expect(SampleCommands.parse(["migrate"], environment: ["CARDINAL_DATABASE_URL": "u"]).parsed != nil)
    }
}
