import ArgumentKit

/// A command tree shaped like Cardinal's, defined here so the tests do not depend on the executables.
enum SampleCommands {
    static let databaseURL = OptionSpec(
        "database-url",
        help: "libpq connection string or URI of the database.",
        valueName: "url",
        environment: "CARDINAL_DATABASE_URL",
        isRequired: true)

    static let create = CommandSpec(
        name: "create",
        abstract: "Create an ingest key and print it once.",
        discussion: "The key is shown only now; Cardinal keeps only its hash.",
        options: [
            OptionSpec("app", help: "The app the key belongs to.", isRequired: true),
            OptionSpec("description", help: "A note on what the key is for.", valueName: "text"),
            databaseURL,
        ])

    static let revoke = CommandSpec(
        name: "revoke",
        abstract: "Revoke an ingest key.",
        arguments: [ArgumentSpec("key-id", help: "The key to revoke.")],
        options: [databaseURL])

    static let keys = CommandSpec(name: "keys", abstract: "Manage ingest keys.", subcommands: [create, revoke])

    static let control = CommandSpec(
        name: "control",
        abstract: "Compare each variant of a campaign against its control group.",
        arguments: [ArgumentSpec("output", help: "Where to write the report; standard output if left out.", isOptional: true)],
        options: [
            OptionSpec(
                "format", short: "f", help: "Output format: table, csv or json.", default: "table",
                environment: "CARDINAL_FORMAT", allowedValues: ["table", "csv", "json"]),
            OptionSpec("campaign", help: "Only this campaign; repeat for several.", valueName: "id", isRepeatable: true),
            OptionSpec("timeout", help: "Give up on the database after this long.", valueName: "duration", default: "30s"),
            OptionSpec("limit", help: "Show at most this many rows.", valueName: "count"),
            databaseURL,
        ],
        flags: [
            FlagSpec("fail-on-anomalies", help: "Exit with status 1 if any anomaly is found, so a cron job can alert."),
            FlagSpec("verbose", short: "v", help: "Log each query.", environment: "CARDINAL_VERBOSE"),
        ])

    static let report = CommandSpec(name: "report", abstract: "Run a report and print it.", subcommands: [control])

    static let migrate = CommandSpec(
        name: "migrate", abstract: "Apply pending database migrations.", options: [databaseURL])

    static let cardinal = CommandSpec(
        name: "cardinal",
        abstract: "Cardinal's command-line tool: ingest keys, migrations and reports.",
        subcommands: [keys, report, migrate])

    /// `cardinal` with a version, which turns on `--version`.
    static let versionedCardinal = CommandSpec(
        name: "cardinal",
        abstract: "Cardinal's command-line tool: ingest keys, migrations and reports.",
        subcommands: [keys, report, migrate],
        version: "1.2.3")

    /// A daemon with more options than a usage line shows one by one.
    static let cardinald = CommandSpec(
        name: "cardinald",
        abstract: "Receive engagement events over HTTP and store them in PostgreSQL.",
        options: [
            databaseURL,
            OptionSpec("listen", help: "Address and port to listen on.", valueName: "address", default: "127.0.0.1:8080"),
            OptionSpec("maximum-request-body-size", help: "Largest accepted request body.", valueName: "bytes",
                       default: "1048576"),
            OptionSpec("batch-size", help: "Events per database write.", valueName: "count", default: "500"),
            OptionSpec("flush-interval", help: "Longest wait before a write.", valueName: "duration", default: "50ms"),
            OptionSpec("queue-capacity", help: "Events held before requests are refused.", valueName: "count"),
            OptionSpec("pool-size", help: "Database connections.", valueName: "count", default: "4"),
            OptionSpec("log-format", help: "Log line format.", default: "logfmt", allowedValues: ["logfmt", "json"]),
            OptionSpec("retention-days", help: "Days of events to keep.", valueName: "days", default: "400"),
            OptionSpec("shutdown-timeout", help: "Time to drain on SIGTERM.", valueName: "duration", default: "10s"),
        ],
        flags: [
            FlagSpec("verbose", help: "Log every request."),
            FlagSpec("skip-migration-check", help: "Start even if migrations are pending."),
            FlagSpec("read-only", help: "Reject writes; for maintenance."),
        ])

    /// Parses a command line (without the executable's name) against `cardinal`.
    static func parse(_ words: [String], environment: [String: String] = [:]) -> ParseOutcome {
        CommandLineParser.parse(words, root: cardinal, environment: environment)
    }
}

extension ParseOutcome {
    /// The parsed arguments, if the outcome is to run a command.
    var parsed: ParsedArguments? {
        if case .run(let parsed) = self { parsed } else { nil }
    }

    /// The help text, if the outcome is to print help.
    var helpText: String? {
        if case .help(let text) = self { text } else { nil }
    }

    /// The version text, if the outcome is to print the version.
    var versionText: String? {
        if case .version(let text) = self { text } else { nil }
    }

    /// The usage error, if the outcome is to report one.
    var error: UsageError? {
        if case .usageError(let error) = self { error } else { nil }
    }
}
