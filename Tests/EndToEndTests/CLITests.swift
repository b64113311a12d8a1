import CardinalCore
import Foundation
import PostgresClient
import Testing
import TestSupport

/// The `cardinal` and `cardinald` command lines as an operator meets them: help, output streams, exit codes.
@Suite struct CLITests {
    @Test("cardinal --help prints the overview, usage, options and subcommands")
    func rootHelpSnapshot() throws {
        let result = try CardinalCLI.run(["--help"])

        #expect(result.exitStatus == 0)
        #expect(result.standardError.isEmpty)
        #expect(result.standardOutput == """
            OVERVIEW: Cardinal's command line: schema migrations, apps and ingest keys,
            reports and their state, erasure and retention.

            Every command reads the database from --database-url or CARDINAL_DATABASE_URL.

            USAGE: cardinal <subcommand>

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:
              migrate                 Apply pending schema migrations and changed SQL code
                                      to the database.
              apps                    Create and list apps; every event and ingest key
                                      belongs to one app.
              keys                    Create, list and revoke ingest keys.
              campaigns               Set and list campaign report settings: conversion
                                      events, windows, expected split, time zone,
                                      significance rule.
              report                  Compute and print reports, or run the scheduled job
                                      that stores them for psql and dashboards.
              state                   Fold stored events into the report state, show its
                                      backlog, or rebuild it from raw events.
              users                   Erase everything Cardinal keeps about users or devices
                                      of an app (right to erasure).
              retention               Drop events and rejected events older than the
                                      retention (settings.retention_days).

              See 'cardinal help <subcommand>' for detailed help.

            """)
    }

    @Test("cardinal keys create --help prints its usage and options, as 'cardinal help keys create' does")
    func keysCreateHelpSnapshot() throws {
        let expected = """
            OVERVIEW: Create an ingest key and print it, alone, on standard output.

            USAGE: cardinal keys create [--database-url <url>] --app <app>
                                        [--description <text>]

            OPTIONS:
              --database-url <url>    libpq connection string or URI of the Cardinal
                                      database. (env: CARDINAL_DATABASE_URL)
              --app <app>             The app the key belongs to.
              --description <text>    Where the key is used, for the listing.
              --version               Show the version.
              -h, --help              Show help information.

            """

        let flag = try CardinalCLI.run(["keys", "create", "--help"])
        let command = try CardinalCLI.run(["help", "keys", "create"])

        #expect(flag.exitStatus == 0)
        #expect(flag.standardOutput == expected)
        #expect(command.exitStatus == 0)
        #expect(command.standardOutput == expected)
    }

    @Test("cardinal --version and cardinald --version print the name and version on standard output")
    func versions() throws {
        for name in ["cardinal", "cardinald"] {
            let result = try ChildProcess.run(try CardinalCLI.binary(name), ["--version"])

            #expect(result.exitStatus == 0, "\(name)")
            #expect(result.standardOutput == "\(name) \(CardinalVersion.current)\n")
            #expect(result.standardError.isEmpty, "\(name): \(result.standardError)")
        }
        let withError = try ChildProcess.run(try CardinalCLI.binary("cardinald"), ["--listen", "nowhere", "--version"])
        #expect(withError.exitStatus == 0, "--version wins over a bad value, as --help does")
        #expect(withError.standardOutput == "cardinald \(CardinalVersion.current)\n")
    }

    @Test("cardinal keys create prints only the key on standard output")
    func keysCreatePrintsOnlyTheKey() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cli")
        defer { database.drop() }
        try CardinalCLI.createApp("cli-app", databaseURL: database.url)

        let result = try CardinalCLI.run(["keys", "create", "--app", "cli-app", "--database-url", database.url])

        #expect(result.exitStatus == 0)
        let key = result.standardOutput
        #expect(key.wholeMatch(of: /cdl_ck_[A-Za-z0-9]{12}_[A-Za-z0-9]{32}\n/) != nil, "stdout: \(key)")
        #expect(!result.standardError.contains(key.trimmingCharacters(in: .newlines)), "the key is never logged")
        let stored = try database.connect().query("select count(*) from cardinal.ingest_keys")[0].decode(Int.self, at: 0)
        #expect(stored == 1)
    }

    @Test("cardinal state rebuild under a fold budget smaller than the app folds all its events again and gives the emptied queue's pages back")
    func stateRebuildUnderASmallBudgetFoldsEverythingAndCompactsTheQueue() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cli")
        defer { database.drop() }
        try CardinalCLI.createApp("cli-app", databaseURL: database.url)
        let connection = try database.connect()
        try connection.execute(
            """
            insert into cardinal.events (app_id, id, type, channel, time, user_id, campaign_id)
            select a.app_id, gen_random_uuid(), 'impression', 'content_card', now() - interval '1 hour', 'user' || n,
                   'spring'
            from cardinal.apps as a
            cross join generate_series(1, 40) as n
            where a.name = 'cli-app'
            """
        )
        try CardinalCLI.succeed(["state", "fold", "--database-url", database.url])
        // A budget of 10 queued events: the rebuild's 40 take several folds, all of which must run.
        var budgeted = try #require(URLComponents(string: database.url))
        budgeted.queryItems = (budgeted.queryItems ?? [])
            + [URLQueryItem(name: "options", value: "-c cardinal.fold_queue_budget=10")]

        let rebuilt = try CardinalCLI.run(
            ["state", "rebuild", "--app", "cli-app", "--database-url", try #require(budgeted.string)]
        )

        #expect(rebuilt.exitStatus == 0, "\(rebuilt.standardError)")
        #expect(rebuilt.standardError.contains("rebuilt app cli-app from 40 events"), "\(rebuilt.standardError)")
        let row = try connection.query(
            """
            select (select count(*) from cardinal.report_fold_queue),
                   pg_relation_size('cardinal.report_fold_queue'),
                   (select count(*) from cardinal.report_user_state)
            """
        )[0]
        #expect(try row.decode(Int64.self, at: 0) == 0)
        #expect(try row.decode(Int64.self, at: 1) == 0, "the queue's dead rows are vacuumed away")
        #expect(try row.decode(Int64.self, at: 2) == 40)
    }

    @Test("campaigns set --cuped-window stores the window campaigns list shows, and refuses one over 90 days")
    func cupedWindowSetting() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cli")
        defer { database.drop() }
        try CardinalCLI.createApp("cli-app", databaseURL: database.url)
        let common = ["--app", "cli-app", "--database-url", database.url, "--format", "csv"]

        let set = try CardinalCLI.succeed(["campaigns", "set", "--campaign", "c1", "--conversion", "purchase"] + common)
        #expect(set.split(separator: "\n").first?.hasSuffix(",cuped_window") == true, "\(set)")
        #expect(set.split(separator: "\n").last?.hasSuffix(",14d") == true, "the default is 14 days: \(set)")
        try CardinalCLI.succeed(["campaigns", "set", "--campaign", "c1", "--cuped-window", "36h"] + common)
        let listed = try CardinalCLI.succeed(["campaigns", "list"] + common)
        #expect(listed.split(separator: "\n").last?.hasSuffix(",1d12h") == true, "\(listed)")
        let stored = try database.connect().query("select cuped_window::text from cardinal.campaign_settings")
        #expect(try stored[0].decode(String.self, at: 0) == "1 day 12:00:00")

        let refused = try CardinalCLI.run(["campaigns", "set", "--campaign", "c1", "--cuped-window", "91d"] + common)
        #expect(refused.exitStatus == 64)
        #expect(refused.standardError.contains("between 1h and 90d"), "\(refused.standardError)")
    }

    @Test("campaigns set --influenced-open-window stores the window campaigns list shows, and refuses one over 7 days")
    func influencedOpenWindowSetting() throws {
        let database = try TestDatabase.migrated(prefix: "e2e_cli")
        defer { database.drop() }
        try CardinalCLI.createApp("cli-app", databaseURL: database.url)
        let common = ["--app", "cli-app", "--database-url", database.url, "--format", "csv"]

        let set = try CardinalCLI.succeed(["campaigns", "set", "--campaign", "push1", "--influenced-open-window", "90m"]
                                          + common)
        #expect(set.hasPrefix("app,campaign_id,"), "\(set)")
        #expect(set.split(separator: "\n").first?.hasSuffix(",influenced_open_window,significance,cuped_window") == true,
                "\(set)")
        #expect(set.split(separator: "\n").last?.hasSuffix(",1h30m,sequential,14d") == true,
                "90 minutes print as 1h30m: \(set)")
        // Another setting keeps the window.
        try CardinalCLI.succeed(["campaigns", "set", "--campaign", "push1", "--window", "1d"] + common)
        let listed = try CardinalCLI.succeed(["campaigns", "list"] + common)
        #expect(listed.split(separator: "\n").last?.hasSuffix(",1h30m,sequential,14d") == true, "\(listed)")
        let stored = try database.connect().query("select influenced_open_window::text from cardinal.campaign_settings")
        #expect(try stored[0].decode(String.self, at: 0) == "01:30:00")

        let refused = try CardinalCLI.run(["campaigns", "set", "--campaign", "push1", "--influenced-open-window", "8d"]
                                          + common)
        #expect(refused.exitStatus == 64)
        #expect(refused.standardError.contains("between 1m and 7d"), "\(refused.standardError)")
    }

    @Test("A usage error exits 64 with 'Error:' and the usage on standard error, nothing on standard output")
    func usageErrorExits64() throws {
        for arguments in [["keys", "create"], ["bogus"], ["apps", "create", "x", "--colour", "red"]] {
            let result = try CardinalCLI.run(arguments)

            #expect(result.exitStatus == 64, "\(arguments)")
            #expect(result.standardError.hasPrefix("Error: "), "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("Usage: cardinal"), "\(arguments)")
            #expect(result.standardOutput.isEmpty, "\(arguments)")
        }
    }

    @Test("report unique-impressions refuses an unknown --columns name, and --wide with a format other than table")
    func uniqueImpressionsColumnErrors() throws {
        let unknown = try CardinalCLI.run(["report", "unique-impressions", "--columns", "campaign_id,clickz"])
        let wideJSON = try CardinalCLI.run(["report", "unique-impressions", "--wide", "--format", "json"])

        #expect(unknown.exitStatus == 64)
        #expect(unknown.standardError.hasPrefix("Error: no column 'clickz' in this report; its columns are app, "),
                "\(unknown.standardError)")
        #expect(wideJSON.exitStatus == 64)
        #expect(wideJSON.standardError.hasPrefix("Error: --columns and --wide choose the table's columns; json always"))
    }

    @Test("A database error exits 1 with one line on standard error")
    func databaseErrorExits1() throws {
        let unreachable = "postgresql://postgres@127.0.0.1:1/cardinal"
        let admin = try TestEnvironment.adminDatabaseURL()
        var missing = admin
        missing.path = "/cardinal_no_such_database"

        for url in [unreachable, missing.string ?? ""] {
            let result = try CardinalCLI.run(["apps", "list", "--database-url", url])

            #expect(result.exitStatus == 1, "\(url): \(result.standardError)")
            #expect(result.standardError.hasPrefix("Error: "))
            #expect(result.standardError.split(separator: "\n").count == 1, "one line: \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test("Two cardinal migrate runs at once on a fresh database both succeed and apply each migration once")
    func concurrentMigrations() throws {
        let database = try TestDatabase(prefix: "e2e_migrate")
        defer { database.drop() }
        let results = Locked([CommandResult]())

        let finished = ClientThreads.run(count: 2, name: "migrate") { _ in
            if let result = try? CardinalCLI.run(["migrate", "--database-url", database.url]) {
                results.withLock { $0.append(result) }
            }
        }

        #expect(finished)
        let ran = results.value
        #expect(ran.count == 2)
        #expect(ran.allSatisfy { $0.exitStatus == 0 }, "\(ran.map(\.standardError))")
        let files = try FileManager.default.contentsOfDirectory(
            at: TestDatabase.migrationDirectory.url, includingPropertiesForKeys: nil
        ).filter { $0.pathExtension == "sql" }
        let versions = try database.connect().query(
            "select version, count(*) from cardinal.schema_migrations group by version order by version"
        ).map { (try $0.decode(Int.self, at: 0), try $0.decode(Int.self, at: 1)) }
        #expect(versions.count == files.count)
        #expect(versions.allSatisfy { $0.1 == 1 }, "each version once: \(versions)")
    }

    @Test("cardinald --help exits 0 and lists every option; a bad option exits 64")
    func daemonHelp() throws {
        let cardinald = try CardinalCLI.binary("cardinald")

        let help = try ChildProcess.run(cardinald, ["--help"])
        let bad = try ChildProcess.run(cardinald, ["--listen", "nowhere", "--database-url", "postgresql://x"])

        #expect(help.exitStatus == 0)
        #expect(help.standardOutput.hasPrefix("OVERVIEW: Cardinal's ingest daemon"))
        for option in ["--database-url", "--listen", "--writers", "--max-batch-events", "--batch-delay",
                       "--max-queued-events", "--request-timeout", "--max-body-bytes", "--max-inflated-bytes",
                       "--max-connections", "--connection-timeout", "--http-threads", "--key-cache-ttl",
                       "--retention-days", "--fold-interval", "--spool-dir", "--spool-max-bytes", "--log-level",
                       "--max-events-per-request", "--max-stored-rejections-per-request",
                       "--max-stored-rejections-per-app-hour", "--rate-limit-events", "--rate-limit-requests",
                       "--max-connections-per-ip", "--request-deadline"] {
            #expect(help.standardOutput.contains(option), "\(option)")
        }
        #expect(bad.exitStatus == 64)
        #expect(bad.standardError.contains("--listen"))
    }
}
