import ArgumentKit
import Testing

@Suite struct PrecedenceTests {
    let databaseURL = ["CARDINAL_DATABASE_URL": "postgresql://localhost/cardinal"]

    func format(_ words: [String], formatVariable: String?) throws -> String? {
        var environment = databaseURL
        environment["CARDINAL_FORMAT"] = formatVariable
        let parsed = try #require(SampleCommands.parse(["report", "control"] + words, environment: environment).parsed)
        return parsed.option("format")
    }

    @Test("A value on the command line wins over the environment and the default")
    func commandLineWins() throws {
        #expect(try format(["--format", "csv"], formatVariable: "json") == "csv")
    }

    @Test("The environment wins over the default")
    func environmentWinsOverDefault() throws {
        #expect(try format([], formatVariable: "json") == "json")
    }

    @Test("The default applies when neither the command line nor the environment gives a value")
    func defaultApplies() throws {
        #expect(try format([], formatVariable: nil) == "table")
    }

    @Test("An empty environment variable counts as unset")
    func emptyVariableIsUnset() throws {
        #expect(try format([], formatVariable: "") == "table")
    }

    @Test("A required option is satisfied by its environment variable")
    func requiredOptionFromEnvironment() throws {
        let parsed = try #require(SampleCommands.parse(["migrate"], environment: databaseURL).parsed)
        #expect(parsed.option("database-url") == "postgresql://localhost/cardinal")
    }

    @Test("A flag never reads an environment variable it does not declare")
    func undeclaredFlagVariableIsIgnored() throws {
        let environment = databaseURL.merging(["CARDINAL_FAIL_ON_ANOMALIES": "1", "FAIL_ON_ANOMALIES": "1"]) { $1 }
        let parsed = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(!parsed.flag("fail-on-anomalies"))
    }

    @Test("A flag's environment variable turns it on with a true word", arguments: ["1", "true", "YES", "On"])
    func flagVariableTurnsOn(word: String) throws {
        let environment = databaseURL.merging(["CARDINAL_VERBOSE": word]) { $1 }
        let parsed = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(parsed.flag("verbose"))
    }

    @Test("A flag's environment variable leaves it off with a false word", arguments: ["0", "false", "No", "off"])
    func flagVariableLeavesOff(word: String) throws {
        let environment = databaseURL.merging(["CARDINAL_VERBOSE": word]) { $1 }
        let parsed = try #require(SampleCommands.parse(["report", "control"], environment: environment).parsed)
        #expect(!parsed.flag("verbose"))
    }

    @Test("Giving a flag on the command line wins over its environment variable")
    func flagOnCommandLineWins() throws {
        let environment = databaseURL.merging(["CARDINAL_VERBOSE": "false"]) { $1 }
        let parsed = try #require(SampleCommands.parse(["report", "control", "--verbose"], environment: environment).parsed)
        #expect(parsed.flag("verbose"))
    }
}
