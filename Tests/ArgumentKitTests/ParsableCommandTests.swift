import ArgumentKit
import Testing

/// Typed commands: the spec comes from the declarations, and `run` reads the values back typed.
@Suite struct ParsableCommandTests {
    typealias Export = TypedSampleCommands.Export

    @Test("A command's spec lists its declarations in the order they are written")
    func specFromDeclarations() {
        let spec = Export.spec

        #expect(spec.name == "export")
        #expect(spec.abstract == "Export rows.")
        #expect(spec.discussion == "Rows are written in the order they were stored.")
        #expect(spec.arguments.map(\.name) == ["destination"])
        #expect(spec.options.map(\.name) == ["limit", "format", "owner", "timeout", "tag", "even"])
        #expect(spec.flags.map(\.name) == ["verbose"])
        #expect(spec.options.map(\.isRequired) == [false, false, true, false, false, false])
        #expect(spec.options[1].defaultValue == "table")
        #expect(spec.options[1].allowedValues == ["table", "csv", "json"])
        #expect(spec.options[4].isRepeatable)
        #expect(TypedSampleCommands.Ping.spec.options.isEmpty && TypedSampleCommands.Ping.spec.discussion == nil)
    }

    @Test("Given values arrive converted to the types their declarations name")
    func typedValues() throws {
        let parsed = try TypedSampleCommands.run(
            ["rows", "export", "out.csv", "--limit", "10", "--format=csv", "--owner", "ana", "--timeout", "5m",
             "--tag", "b", "--tag", "a", "--even", "4", "-v"],
            as: Export.self)

        #expect(parsed.destination == "out.csv")
        #expect(parsed.limit == 10)
        #expect(parsed.format == .csv)
        #expect(parsed.owner == "ana")
        #expect(parsed.timeout == .seconds(300))
        #expect(parsed.tags == ["b", "a"])
        #expect(parsed.even == 4)
        #expect(parsed.verbose)
        #expect(parsed.commandPath == ["tool", "rows", "export"])
    }

    @Test("Values left out are nil, the default, empty or off; the environment fills in before the default")
    func absentValues() throws {
        let bare = try TypedSampleCommands.run(["rows", "export", "out.csv", "--owner", "ana"], as: Export.self)
        let fromEnvironment = try TypedSampleCommands.run(
            ["rows", "export", "out.csv"], as: Export.self,
            environment: ["TOOL_OWNER": "eve", "TOOL_LIMIT": "7", "TOOL_VERBOSE": "yes"])

        #expect(bare.limit == nil)
        #expect(bare.format == .table)
        #expect(bare.timeout == nil)
        #expect(bare.tags.isEmpty)
        #expect(bare.even == nil)
        #expect(!bare.verbose)
        #expect(fromEnvironment.owner == "eve")
        #expect(fromEnvironment.limit == 7)
        #expect(fromEnvironment.verbose)
    }

    @Test("A value that does not convert is a usage error at parse time, naming the option and the value's source")
    func conversionErrors() {
        let path = ["tool", "rows", "export"]
        func error(_ message: String) -> UsageError {
            UsageError(message: message, commandPath: path, usage: HelpRenderer.usage(Export.spec, path: path))
        }

        #expect(TypedSampleCommands.usageError(["rows", "export", "x", "--owner", "o", "--limit", "ten"])
                == error("The value 'ten' is invalid for '--limit <count>': expected a whole number"))
        #expect(TypedSampleCommands.usageError(["rows", "export", "x", "--owner", "o"], environment: ["TOOL_LIMIT": "many"])
                == error("The value 'many' of environment variable 'TOOL_LIMIT' is invalid for '--limit <count>': "
                         + "expected a whole number"))
        #expect(TypedSampleCommands.usageError(["rows", "export", "x", "--owner", "o", "--timeout", "30"])
                == error("The value '30' is invalid for '--timeout <duration>': "
                         + "expected a duration such as 250ms, 30s, 5m or 1h"))
    }

    @Test("A parser's own reason for refusing a value follows the option's name")
    func customReason() {
        let refused = TypedSampleCommands.usageError(["rows", "export", "x", "--owner", "o", "--even", "3"])

        #expect(refused?.message == "The value '3' is invalid for '--even <n>': 3 is odd")
    }

    @Test("An enumeration option refuses other values and lists its cases")
    func enumerationOption() {
        let refused = TypedSampleCommands.usageError(["rows", "export", "x", "--owner", "o", "--format", "xml"])

        #expect(refused?.message
                == "The value 'xml' is invalid for '--format <format>'. Please provide one of 'table', 'csv' or 'json'.")
    }

    @Test("The tree runs the command the words name, and answers a group, help and --version as the parser does")
    func treeDispatch() throws {
        let ping = try TypedSampleCommands.run(["ping"], as: TypedSampleCommands.Ping.self)
        #expect(ping.commandPath == ["tool", "ping"])
        #expect(throws: TypedSampleCommands.NotRun.self) {
            try TypedSampleCommands.run(["ping"], as: Export.self)
        }

        let tree = TypedSampleCommands.tree
        for words in [["rows"], ["rows", "export", "--help"], ["help", "rows", "export"], ["--version"]] {
            let expected = CommandLineParser.parse(words, root: tree.spec, environment: [:])
            switch (tree.parse(words, environment: [:]), expected) {
            case let (.help(text), .help(expectedText)), let (.version(text), .version(expectedText)):
                #expect(text == expectedText, "\(words)")
            default:
                Issue.record("\(words): not the parser's help or version")
            }
        }
        #expect(TypedSampleCommands.usageError(["rows", "exprot"])?.message
                == "Unknown subcommand 'exprot'. Did you mean 'export'?")
    }
}
