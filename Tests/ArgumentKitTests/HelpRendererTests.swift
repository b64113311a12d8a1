import ArgumentKit
import Testing

@Suite struct HelpRendererTests {
    @Test("Help for a command with options shows overview, discussion, usage and options")
    func leafCommandHelp() {
        let help = HelpRenderer.render(SampleCommands.create, path: ["cardinal", "keys", "create"])
        #expect(help == """
            OVERVIEW: Create an ingest key and print it once.

            The key is shown only now; Cardinal keeps only its hash.

            USAGE: cardinal keys create --app <app> [--description <text>]
                                        --database-url <url>

            OPTIONS:
              --app <app>             The app the key belongs to.
              --description <text>    A note on what the key is for.
              --database-url <url>    libpq connection string or URI of the database.
                                      (env: CARDINAL_DATABASE_URL)
              -h, --help              Show help information.

            """)
    }

    @Test("Help wraps long text at 80 columns and keeps defaults and variables whole")
    func wrappedHelp() {
        let help = HelpRenderer.render(SampleCommands.control, path: ["cardinal", "report", "control"])
        #expect(help == """
            OVERVIEW: Compare each variant of a campaign against its control group.

            USAGE: cardinal report control [--format <format>] [--campaign <id> ...]
                                           [--timeout <duration>] [--limit <count>]
                                           --database-url <url> [--fail-on-anomalies]
                                           [--verbose] [<output>]

            ARGUMENTS:
              <output>                Where to write the report; standard output if left
                                      out.

            OPTIONS:
              -f, --format <format>   Output format: table, csv or json. (default: table)
                                      (env: CARDINAL_FORMAT)
              --campaign <id>         Only this campaign; repeat for several.
              --timeout <duration>    Give up on the database after this long.
                                      (default: 30s)
              --limit <count>         Show at most this many rows.
              --database-url <url>    libpq connection string or URI of the database.
                                      (env: CARDINAL_DATABASE_URL)
              --fail-on-anomalies     Exit with status 1 if any anomaly is found, so a cron
                                      job can alert.
              -v, --verbose           Log each query. (env: CARDINAL_VERBOSE)
              -h, --help              Show help information.

            """)
    }

    @Test("Help for the root group lists subcommands and how to get their help")
    func rootGroupHelp() {
        let help = HelpRenderer.render(SampleCommands.cardinal, path: ["cardinal"])
        #expect(help == """
            OVERVIEW: Cardinal's command-line tool: ingest keys, migrations and reports.

            USAGE: cardinal <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              keys                    Manage ingest keys.
              report                  Run a report and print it.
              migrate                 Apply pending database migrations.

              See 'cardinal help <subcommand>' for detailed help.

            """)
    }

    @Test("Help for a nested group points to help with its full path")
    func nestedGroupHelp() {
        let help = HelpRenderer.render(SampleCommands.keys, path: ["cardinal", "keys"])
        #expect(help.hasPrefix("OVERVIEW: Manage ingest keys.\n\nUSAGE: cardinal keys <subcommand>\n"))
        #expect(help.hasSuffix("\n\n  See 'cardinal help keys <subcommand>' for detailed help.\n"))
    }

    @Test("A usage line with more than twelve elements keeps only required ones after [<options>]")
    func collapsedUsage() {
        #expect(HelpRenderer.usage(SampleCommands.cardinald, path: ["cardinald"])
            == "cardinald [<options>] --database-url <url>")
    }

    @Test("A label too wide for its column puts the description on the next line")
    func wideLabel() {
        let help = HelpRenderer.render(SampleCommands.cardinald, path: ["cardinald"])
        #expect(help.contains("""

              --maximum-request-body-size <bytes>
                                      Largest accepted request body. (default: 1048576)

            """))
    }

    @Test("A command with nothing to take shows its bare name as usage")
    func bareUsage() {
        let spec = CommandSpec(name: "version", abstract: "Print the version.")
        #expect(HelpRenderer.usage(spec, path: ["cardinal", "version"]) == "cardinal version")
    }

    @Test("No line of help for any sample command is wider than 80 columns")
    func helpFitsEightyColumns() {
        func check(_ spec: CommandSpec, path: [String]) {
            let help = HelpRenderer.render(spec, path: path)
            for line in help.split(separator: "\n") {
                #expect(line.count <= 80, "\(path): \(line)")
            }
            for subcommand in spec.subcommands {
                check(subcommand, path: path + [subcommand.name])
            }
        }
        check(SampleCommands.cardinal, path: ["cardinal"])
        check(SampleCommands.cardinald, path: ["cardinald"])
    }
}
